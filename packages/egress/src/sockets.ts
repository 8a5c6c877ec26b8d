import { createSocket } from 'node:dgram';
import { connect, isIPv6, type Socket } from 'node:net';
import { deniedError, type Deny, type Principal } from '@trust/core';
import { recordEgress } from './audit.js';
import type { Engine } from './engine.js';
import { toEgressError } from './errors.js';
import { authorizePeer } from './policy-call.js';
import { parseSocketTarget } from './socket-target.js';
import { hostPort } from './target.js';

export interface SocketCallContext {
  readonly principal: Principal;
  /** Abort the connect or send. */
  readonly signal?: AbortSignal;
}

/** What vetting a TCP/UDP peer needs: the policy, the guard, the audit sink and a clock. */
export type PeerVetting = Pick<Engine, 'policy' | 'guard' | 'audit' | 'now'>;

/**
 * Vets one TCP/UDP peer: target syntax, `authorizeTcp`/`authorizeUdp` (absent = deny), then the
 * guard on every resolved address. A deny is audited and thrown; an allow is returned with the
 * audit function, so the caller records the allow once it knows the dialled address.
 */
export async function vetPeer(
  engine: PeerVetting,
  kind: 'tcp' | 'udp',
  rawHost: string,
  rawPort: number,
  call: SocketCallContext,
  via?: string,
) {
  const started = engine.now();
  const action = kind === 'tcp' ? 'egress.tcp' : 'egress.udp';
  const parsed = parseSocketTarget(rawHost, rawPort);
  const label = `${kind}://${'host' in parsed ? hostPort(parsed.host, parsed.port) : '(invalid)'}`;
  const audit = (
    decision: Parameters<typeof recordEgress>[1]['decision'],
    extra: Partial<Parameters<typeof recordEgress>[1]> = {},
  ) =>
    recordEgress(
      engine.audit,
      {
        principal: call.principal,
        action,
        target: label,
        decision,
        started,
        policy: engine.policy.name,
        ...(via !== undefined ? { via } : {}),
        ...extra,
      },
      engine.now,
    );
  if (!('host' in parsed)) {
    audit(parsed);
    throw deniedError(parsed);
  }
  const decision = await authorizePeer(
    engine.policy,
    kind,
    { host: parsed.host, port: parsed.port },
    { principal: call.principal, capability: kind },
  );
  if (!decision.allow) {
    audit(decision);
    throw deniedError(decision as Deny);
  }
  const verdict = await engine.guard.resolveHost(parsed.host, parsed.port);
  if (!verdict.allow) {
    audit(verdict, { addresses: verdict.addresses });
    throw deniedError(verdict);
  }
  return { parsed, decision, verdict, audit, label };
}

/** TCP connect through policy (`authorizeTcp`; absent = deny) and guard, to the vetted address. */
export async function egressConnectTcp(
  engine: Engine,
  host: string,
  port: number,
  call: SocketCallContext,
): Promise<Socket> {
  const { parsed, decision, verdict, audit } = await vetPeer(engine, 'tcp', host, port, call);
  const ip = verdict.addresses[0] as string;
  const where = hostPort(parsed.host, parsed.port);
  try {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({
        host: ip,
        port: parsed.port,
        timeout: engine.limits.connectTimeoutMs,
        ...(call.signal ? { signal: call.signal } : {}),
      });
      const fail = (e: Error): void => {
        s.destroy();
        reject(e);
      };
      s.once('connect', () => {
        s.setTimeout(0);
        s.off('error', fail);
        resolve(s);
      });
      s.once('timeout', () => fail(Object.assign(new Error('connect timed out'), { code: 'UND_ERR_CONNECT_TIMEOUT' })));
      s.once('error', fail);
    });
    audit(decision, { addresses: verdict.addresses, dialled: ip });
    return socket;
  } catch (e) {
    const err = toEgressError(e, { where, userSignal: call.signal });
    audit(decision, { addresses: verdict.addresses, failure: err.code });
    throw err;
  }
}

/** One UDP datagram through policy (`authorizeUdp`; absent = deny) and guard, to the vetted address. */
export async function egressSendUdp(
  engine: Engine,
  host: string,
  port: number,
  data: Uint8Array | string,
  call: SocketCallContext,
): Promise<void> {
  const { parsed, decision, verdict, audit } = await vetPeer(engine, 'udp', host, port, call);
  const ip = verdict.addresses[0] as string;
  const socket = createSocket(isIPv6(ip) ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.send(typeof data === 'string' ? Buffer.from(data) : data, parsed.port, ip, (err) =>
        err ? reject(err) : resolve(),
      );
    });
    audit(decision, { addresses: verdict.addresses, dialled: ip });
  } catch (e) {
    const err = toEgressError(e, { where: hostPort(parsed.host, parsed.port) });
    audit(decision, { addresses: verdict.addresses, failure: err.code });
    throw err;
  } finally {
    socket.close();
  }
}
