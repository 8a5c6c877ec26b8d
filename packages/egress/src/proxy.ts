import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { deny, type AuditSink, type EgressPolicy, type Principal } from '@trust/core';
import type { Dispatcher } from 'undici';
import { recordEgress } from './audit.js';
import { createEgressDispatcher, toGuard } from './dispatcher.js';
import { checkEgressOptions } from './egress-options.js';
import type { EgressGuard } from './guard.js';
import type { GuardOptions } from './guard-options.js';
import { resolveLimits, type EgressLimits } from './limits.js';
import { resolveClientLimits, type ConnectionBudget, type EgressProxyClientLimits } from './proxy-client-limits.js';
import { createConnectHandler } from './proxy-connect.js';
import {
  createClientConnection,
  timeoutDeny,
  type ClientConnection,
  type ConnectionEvents,
} from './proxy-connection.js';
import { createInflight, type ProxyContext } from './proxy-context.js';
import { proxyOptionsSchema } from './proxy-options.js';
import { createForwardHandler } from './proxy-forward.js';
import { malformedRequest, refuseHttp, refuseMalformed } from './proxy-refuse.js';
import { handleSocks5 } from './socks5.js';
import { hostPort } from './target.js';
import { createUdpRelay, type UdpRelayLimits } from './udp-relay.js';

export interface EgressProxyOptions {
  readonly policy: EgressPolicy;
  readonly guard?: EgressGuard | GuardOptions;
  readonly audit?: AuditSink;
  /** The principal of everyone who connects to this listener. Clients cannot claim another. */
  readonly principal: Principal;
  /** A unix socket path, or a loopback TCP port (0 = pick one). */
  readonly listen: { readonly path: string } | { readonly host: '127.0.0.1' | '::1'; readonly port: number };
  /**
   * Limits of forwarded requests. `totalTimeoutMs` bounds each whole request, its streamed
   * request and response bodies included (a peer dripping bytes is cut there).
   */
  readonly limits?: EgressLimits;
  /**
   * Limits of the client side (the sandboxed process): deadlines from the first byte, the open
   * connections of this listener, header lines per request, requests parsed ahead. Defaults in
   * `EgressProxyClientLimits`.
   */
  readonly clientLimits?: EgressProxyClientLimits;
  /**
   * A budget shared by every proxy of this process (see `createConnectionBudget`): the total cap
   * on open client connections across runs. `undefined`: only this listener's `maxConnections`.
   */
  readonly connectionBudget?: ConnectionBudget;
  /**
   * Forwards `TRACE` when the policy allows the request (default false: `405`). Never on a
   * request the policy injected a header into: the echo would hand the credential to the client.
   */
  readonly allowTrace?: boolean;
  /**
   * How CONNECT tunnels are judged: `'http'` (default) asks `authorizeHttp` about
   * `https://host:port/` with method CONNECT, and opens the tunnel only to port 443 or to a port
   * the allowing rule names explicitly (`Allow.port`, e.g. rule `api.example.com:8443`); any
   * other port is a raw TCP tunnel and needs `authorizeTcp` to allow it (absent = deny), as
   * under `'tcp'`, which asks `authorizeTcp` only. A refusal is a `403` with the reason, audited.
   */
  readonly connectAs?: 'http' | 'tcp';
  /**
   * How long `close()` lets forwarded requests in flight finish before it aborts them (default
   * 1000 ms). Tunnels and idle connections are closed at once.
   */
  readonly closeGraceMs?: number;
  /**
   * SOCKS5 UDP ASSOCIATE through this listener's datagram channels (see `createUdpRelay`):
   * `announce` is the address clients are told to send datagrams to, i.e. where a datagram
   * bridge in front of this listener receives them (the sandbox launcher's loopback UDP port).
   * Every datagram's destination is judged by `authorizeUdp` and the guard, and audited.
   * `undefined`: UDP ASSOCIATE is refused and no datagram channel is accepted.
   */
  readonly udp?: {
    readonly announce: { readonly host: '127.0.0.1' | '::1'; readonly port: number };
    readonly limits?: Partial<UdpRelayLimits>;
  };
}

export interface EgressProxy {
  /** `{ path }` for a unix socket, `{ host, port }` for TCP. */
  readonly address: { readonly path: string } | { readonly host: string; readonly port: number };
  /** `http://127.0.0.1:port` for TCP listeners (for HTTP_PROXY); undefined for unix sockets. */
  readonly url: string | undefined;
  /**
   * Stops listening, lets forwarded requests in flight finish for `closeGraceMs`, then aborts
   * them and destroys every connection and tunnel. Always returns, whatever the peers do.
   */
  close(): Promise<void>;
}

/**
 * An HTTP forward proxy plus CONNECT (and SOCKS5 CONNECT on the same listener), bound to one
 * principal. Every request and tunnel runs the
 * policy, the guard on the address actually dialled, and records one audit event. Denials get
 * `403` with `x-trust-deny: <code>` and the reason as a text body.
 *
 * @example
 * const proxy = await createEgressProxy({
 *   policy,
 *   principal: { kind: 'process', id: 'run-1' },
 *   listen: { path: '/run/trust/run-1.sock' },
 * });
 * // HTTPS_PROXY for the sandboxed process points at a bridge to this socket.
 * await proxy.close();
 */
export async function createEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  checkEgressOptions('createEgressProxy', proxyOptionsSchema, options);
  const guard = toGuard(options.guard);
  const limits = resolveLimits(options.limits);
  const clientLimits = resolveClientLimits(options.clientLimits);
  const closeGraceMs = options.closeGraceMs ?? 1000;
  const dialled = new Map<string, string>();
  // Made at the first forwarded request: many listeners (one per sandboxed run) never see one.
  // None is made once closing has begun (a request still being judged then fails, as it would on
  // a closed one).
  let dispatcher: Dispatcher | undefined;
  let closing = false;
  const principal = options.principal;
  const now = Date.now;
  const sockets = new Set<Socket | Duplex>();
  const inflight = createInflight();
  const udpRelay = options.udp
    ? createUdpRelay({ policy: options.policy, guard, audit: options.audit, now }, principal, options.udp.limits)
    : undefined;
  const connectAs = options.connectAs ?? 'http';

  const ctx: ProxyContext = {
    policy: options.policy,
    guard,
    limits,
    clientLimits,
    allowTrace: options.allowTrace ?? false,
    principal,
    connectAs,
    sink: options.audit,
    now,
    dialled,
    sockets,
    inflight,
    forwarder: () => {
      if (closing) throw new Error('the egress proxy is closed');
      dispatcher ??= createEgressDispatcher({
        guard,
        limits,
        onDial: (d) => dialled.set(hostPort(d.host, d.port), d.ip),
      });
      return dispatcher;
    },
    audit: (target, decision, started, extra = {}) =>
      recordEgress(
        options.audit,
        {
          principal,
          action: extra.method === 'CONNECT' && connectAs === 'tcp' ? 'egress.tcp' : 'egress.http',
          target,
          decision,
          started,
          policy: options.policy.name,
          via: 'proxy',
          ...extra,
        },
        now,
      ),
  };
  const onRequest = createForwardHandler(ctx);
  const onConnect = createConnectHandler(ctx);
  const conns = new WeakMap<Duplex, ClientConnection>();

  const server = createServer({ maxHeaderSize: 64 * 1024 });
  // Every deadline is the proxy's own (`proxy-connection.ts`); Node's would never fire on a
  // server that does not listen, and its keep-alive timer would race ours.
  server.keepAliveTimeout = 0;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  // Keep every header line (a truncated head could lose its framing); more than
  // `maxHeaderCount` is refused with 431 by the forward handler. `maxHeaderSize` bounds the bytes.
  server.maxHeadersCount = 0;
  const onHttp = (req: IncomingMessage, res: ServerResponse): void => {
    const conn = conns.get(req.socket);
    if (!conn) return void res.destroy();
    conn.enqueue(req, res, (current) =>
      onRequest(req, res, current).catch(() => refuseHttp(res, deny('EGRESS_PROTOCOL', 'egress proxy failed'), 502)),
    );
  };
  server.on('request', onHttp);
  // `Expect` is answered by the forward handler: `100 Continue` once the request is allowed,
  // `417` for any other expectation (audited).
  server.on('checkContinue', onHttp);
  server.on('checkExpectation', onHttp);
  server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    conns.get(socket)?.handOff();
    onConnect(req, socket, head).catch(() => socket.destroy());
  });
  // A request the parser refuses gets a 400 (or 431) with a short reason, audited, instead of a
  // silent close. A body that fails to parse under a request not yet answered is refused the same
  // way, and that request is audited as this denial, not as an aborted allow.
  server.on('clientError', (e: Error & { code?: string }, s: Duplex) => {
    const conn = conns.get(s);
    const current = conn?.current;
    // Bytes after a request that closes the connection (RFC 9112 §9.6): never read, never judged;
    // the answer under way finishes and the connection closes.
    if (e.code === 'HPE_CLOSED_CONNECTION') return;
    if (e.code === 'ECONNRESET' || !s.writable || current?.res.headersSent) return void s.destroy();
    const { status, decision } = malformedRequest(e);
    if (current) current.malformed = decision;
    ctx.audit('<malformed>', decision, now());
    refuseMalformed(s, status, decision);
  });

  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const clients = new Set<Socket>();
  const events: ConnectionEvents = {
    timedOut(socket, d) {
      ctx.audit('<connection>', d, now());
      const current = conns.get(socket)?.current;
      if (current?.res.headersSent) return void socket.destroy();
      refuseMalformed(socket, 408, d);
    },
  };
  // One listener speaks both HTTP (forward + CONNECT) and SOCKS5: the first byte decides
  // (0x05 is never the start of an HTTP request line).
  const front = createNetServer((socket) => {
    track(socket);
    socket.on('error', () => socket.destroy());
    const own = clients.size >= clientLimits.maxConnections;
    const budget = options.connectionBudget;
    const release = own ? undefined : budget ? budget.tryAcquire() : () => undefined;
    if (!release) return void refuseBusy(socket, own);
    clients.add(socket);
    const conn = createClientConnection(socket, clientLimits, events, now);
    conns.set(socket, conn);
    socket.on('close', () => {
      clients.delete(socket);
      release();
      conn.dispose();
    });
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first[0] === 0x00 && udpRelay) {
        conn.handOff();
        udpRelay.channel(socket, first.subarray(1));
        return;
      }
      if (first[0] === 0x05) {
        conn.handOff();
        // The whole SOCKS5 handshake (greeting, request, judging, dialling) has the request deadline.
        const handshake = setTimeout(() => {
          ctx.audit(
            '<connection>',
            timeoutDeny('the SOCKS5 handshake did not complete', clientLimits.requestTimeoutMs),
            now(),
          );
          socket.destroy();
        }, clientLimits.requestTimeoutMs);
        socket.once('close', () => clearTimeout(handshake));
        socket.resume();
        handleSocks5(socket, first, {
          onEstablished: () => clearTimeout(handshake),
          policy: options.policy,
          guard,
          principal,
          connectTimeoutMs: limits.connectTimeoutMs,
          track,
          ...(udpRelay && options.udp ? { udp: { relay: udpRelay, announce: options.udp.announce } } : {}),
          audit: (target, decision, started, extra) =>
            recordEgress(
              options.audit,
              {
                principal,
                action: 'egress.tcp',
                target,
                decision,
                started,
                policy: options.policy.name,
                via: 'socks5',
                ...extra,
              },
              now,
            ),
        });
        return;
      }
      conn.bytes();
      socket.unshift(first);
      server.emit('connection', socket);
      // Before the parser's listener: bytes are counted before the request they complete is parsed.
      socket.prependListener('data', () => conn.bytes());
      socket.resume();
    });
  });
  // A connection over a cap gets a 503 with the reason (audited) and is closed at once.
  const refuseBusy = (socket: Socket, own: boolean): void => {
    const d = deny(
      'EGRESS_CONNECTION_LIMIT',
      own
        ? `egress proxy: this run already holds ${clientLimits.maxConnections} open connections`
        : `egress proxy: the host's ${options.connectionBudget?.max} connections for all runs are in use`,
      { rule: 'connection-limit', hint: 'reuse connections (keep-alive) and close the ones you no longer need' },
    );
    ctx.audit('<connection>', d, now());
    refuseMalformed(socket, 503, d);
  };

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    if ('path' in options.listen) front.listen(options.listen.path, resolve);
    else front.listen(options.listen.port, options.listen.host, resolve);
  });
  const info = front.address();
  let address: EgressProxy['address'];
  let url: string | undefined;
  if (typeof info === 'string' || info === null) {
    address = { path: 'path' in options.listen ? options.listen.path : String(info) };
  } else {
    const a = info as AddressInfo;
    address = { host: a.address, port: a.port };
    url = `http://${hostPort(a.address, a.port)}`;
  }
  return {
    address,
    url,
    close: async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => front.close(() => resolve()));
      await inflight.settled(closeGraceMs);
      inflight.abortAll(new Error('the egress proxy is closing'));
      for (const s of sockets) s.destroy();
      await stopped;
      await udpRelay?.close();
      // destroy, not close: close waits for requests in flight, which may never end.
      await (dispatcher as unknown as { destroy(): Promise<void> } | undefined)?.destroy();
    },
  };
}
