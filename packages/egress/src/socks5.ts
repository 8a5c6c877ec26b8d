import { connect, type Socket } from 'node:net';
import { deny, parseIp, type Decision, type Deny, type EgressPolicy, type Principal } from '@trust/core';
import type { EgressGuard } from './guard.js';
import { toEgressError } from './errors.js';
import { authorizePeer } from './policy-call.js';
import { parseSocketTarget } from './socket-target.js';
import { readSocksAddress } from './socks-address.js';
import { hostPort } from './target.js';
import type { UdpRelay } from './udp-relay.js';

/** What the SOCKS5 handler needs from the proxy that owns the listener. */
export interface Socks5Deps {
  readonly policy: EgressPolicy;
  readonly guard: EgressGuard;
  readonly principal: Principal;
  readonly connectTimeoutMs: number;
  readonly track: (s: Socket) => void;
  /** Called once the session is established (a tunnel, or a UDP association): the handshake is over. */
  readonly onEstablished?: () => void;
  readonly audit: (
    target: string,
    decision: Decision,
    started: number,
    extra: { addresses?: readonly string[]; dialled?: string; failure?: string },
  ) => void;
  /**
   * UDP ASSOCIATE: the relay of this listener and the address announced to clients (where the
   * datagram bridge in front of the listener receives). `undefined`: UDP ASSOCIATE is refused.
   */
  readonly udp?: { readonly relay: UdpRelay; readonly announce: { readonly host: string; readonly port: number } };
}

// RFC 1928 reply codes.
const REP_OK = 0x00;
const REP_FAILURE = 0x01;
const REP_NOT_ALLOWED = 0x02;
const REP_HOST_UNREACHABLE = 0x04;
const REP_CONNECTION_REFUSED = 0x05;
const REP_COMMAND = 0x07;
const REP_ADDRESS_TYPE = 0x08;
const MAX_HANDSHAKE = 600;

function reply(socket: Socket, rep: number, end: boolean, bound?: { host: string; port: number }): void {
  const ip = bound ? parseIp(bound.host) : undefined;
  const addr = ip ? Buffer.from(ip.bytes) : Buffer.alloc(4);
  const msg = Buffer.alloc(4 + addr.length + 2);
  msg[0] = 0x05;
  msg[1] = rep;
  msg[3] = ip?.family === 6 ? 0x04 : 0x01;
  addr.copy(msg, 4);
  msg.writeUInt16BE(bound?.port ?? 0, 4 + addr.length);
  if (end) socket.end(msg);
  else socket.write(msg);
}

/** Parses the CONNECT request once enough bytes arrived; `undefined` = need more. */
function parseRequest(
  buf: Buffer,
): { cmd: number; host: string; port: number; atypOk: boolean; length: number } | undefined {
  if (buf.length < 5) return undefined;
  const cmd = buf[1] as number;
  const addr = readSocksAddress(buf, 3);
  if (addr === 'short') return undefined;
  if (addr === 'unsupported') return { cmd, host: '', port: 0, atypOk: false, length: buf.length };
  return { cmd, host: addr.host, port: addr.port, atypOk: true, length: addr.end };
}

/**
 * SOCKS5 (RFC 1928), no authentication. CONNECT: the peer is judged by `authorizeTcp`
 * (absent = deny), then the guard on the address dialled, as for `connectTcp`. UDP ASSOCIATE
 * only when the listener has a UDP relay (`deps.udp`; see `createUdpRelay`); BIND is refused
 * (never bind or listen on the host). The reply code cannot carry our code string; the audit
 * event does.
 */
export function handleSocks5(socket: Socket, first: Buffer, deps: Socks5Deps): void {
  const started = Date.now();
  let buf = first;
  let stage: 'greeting' | 'request' | 'done' = 'greeting';
  const onData = (chunk: Buffer): void => {
    buf = Buffer.concat([buf, chunk]);
    step();
  };
  const refuse = (target: string, d: Deny, rep: number): void => {
    stage = 'done';
    deps.audit(target, d, started, {});
    reply(socket, rep, true);
  };
  const step = (): void => {
    if (buf.length > MAX_HANDSHAKE) return void socket.destroy();
    if (stage === 'greeting') {
      if (buf.length < 2 || buf.length < 2 + (buf[1] as number)) return;
      const methods = buf.subarray(2, 2 + (buf[1] as number));
      buf = buf.subarray(2 + (buf[1] as number));
      if (!methods.includes(0x00)) {
        stage = 'done';
        socket.end(Buffer.from([0x05, 0xff]));
        return;
      }
      socket.write(Buffer.from([0x05, 0x00]));
      stage = 'request';
    }
    if (stage !== 'request') return;
    const req = parseRequest(buf);
    if (req === undefined) return;
    stage = 'done';
    buf = buf.subarray(req.length); // bytes after the request belong to the tunnel
    socket.off('data', onData);
    socket.pause(); // hold early tunnel bytes until the upstream is connected (pipe resumes)
    if (!req.atypOk) {
      refuse(
        'socks://(unknown address type)',
        deny('EGRESS_TARGET_INVALID', 'egress denied: unsupported SOCKS5 address type', { rule: 'socks' }),
        REP_ADDRESS_TYPE,
      );
      return;
    }
    if (req.cmd === 0x03 && deps.udp) {
      // UDP ASSOCIATE: the datagrams arrive through the listener's datagram channels and are
      // judged one destination at a time by the relay. The client's announced port binds it.
      deps.udp.relay.associate(socket, req.port);
      deps.onEstablished?.();
      reply(socket, REP_OK, false, deps.udp.announce);
      return;
    }
    if (req.cmd !== 0x01) {
      const what = deps.udp
        ? 'SOCKS5 CONNECT and UDP ASSOCIATE are offered (no BIND)'
        : 'only SOCKS5 CONNECT is offered (no BIND, no UDP ASSOCIATE)';
      refuse(
        `socks://${hostPort(req.host, req.port)}`,
        deny('EGRESS_TARGET_INVALID', `egress denied: ${what}`, { rule: 'socks' }),
        REP_COMMAND,
      );
      return;
    }
    void connectPeer(req.host, req.port);
  };
  const connectPeer = async (rawHost: string, rawPort: number): Promise<void> => {
    const parsed = parseSocketTarget(rawHost, rawPort);
    if (!('host' in parsed)) return refuse(`socks://${rawHost}:${rawPort}`, parsed, REP_NOT_ALLOWED);
    const label = `socks://${hostPort(parsed.host, parsed.port)}`;
    const decision = await authorizePeer(
      deps.policy,
      'tcp',
      { host: parsed.host, port: parsed.port },
      { principal: deps.principal, capability: 'tcp' },
    );
    if (!decision.allow) return refuse(label, decision as Deny, REP_NOT_ALLOWED);
    const verdict = await deps.guard.resolveHost(parsed.host, parsed.port);
    if (!verdict.allow) {
      deps.audit(label, verdict, started, { addresses: verdict.addresses });
      return reply(socket, verdict.code.startsWith('EGRESS_DNS') ? REP_HOST_UNREACHABLE : REP_NOT_ALLOWED, true);
    }
    const ip = verdict.addresses[0] as string;
    const upstream = connect({ host: ip, port: parsed.port, timeout: deps.connectTimeoutMs });
    deps.track(upstream);
    upstream.once('timeout', () =>
      upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'UND_ERR_CONNECT_TIMEOUT' })),
    );
    upstream.once('error', (e) => {
      if (upstream.connecting) {
        const err = toEgressError(e, { where: hostPort(parsed.host, parsed.port) });
        deps.audit(label, decision, started, { addresses: verdict.addresses, failure: err.code });
        reply(socket, err.code === 'EGRESS_CONNECT_FAILED' ? REP_CONNECTION_REFUSED : REP_FAILURE, true);
      }
      socket.destroy();
    });
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      deps.onEstablished?.();
      deps.audit(label, decision, started, { addresses: verdict.addresses, dialled: ip });
      reply(socket, REP_OK, false);
      if (buf.length > 0) upstream.write(buf);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('close', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  };
  socket.on('data', onData);
  socket.on('error', () => socket.destroy());
  step();
}
