import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TrustError, deny, type AuditSink, type Decision, type Deny, type EgressPolicy, type Principal } from '@trust/core';
import type { Dispatcher } from 'undici';
import { recordEgress } from './audit.js';
import { createEgressDispatcher, toGuard } from './dispatcher.js';
import type { EgressGuard } from './guard.js';
import type { GuardOptions } from './guard-options.js';
import { toEgressError } from './errors.js';
import { resolveLimits, type EgressLimits } from './limits.js';
import { authorizeHttp, authorizePeer } from './policy-call.js';
import { redactUrl } from './redact.js';
import { handleSocks5 } from './socks5.js';
import { hostPort, isDenyResult, parseTarget } from './target.js';
import { createUdpRelay, type UdpRelayLimits } from './udp-relay.js';

export interface EgressProxyOptions {
  readonly policy: EgressPolicy;
  readonly guard?: EgressGuard | GuardOptions;
  readonly audit?: AuditSink;
  /** The principal of everyone who connects to this listener. Clients cannot claim another. */
  readonly principal: Principal;
  /** A unix socket path, or a loopback TCP port (0 = pick one). */
  readonly listen: { readonly path: string } | { readonly host: '127.0.0.1' | '::1'; readonly port: number };
  readonly limits?: EgressLimits;
  /**
   * How CONNECT tunnels are judged: `'http'` (default) asks `authorizeHttp` about
   * `https://host:port/` with method CONNECT; `'tcp'` asks `authorizeTcp` (absent = deny).
   */
  readonly connectAs?: 'http' | 'tcp';
  /**
   * SOCKS5 UDP ASSOCIATE through this listener's datagram channels (see `createUdpRelay`):
   * `announce` is the address clients are told to send datagrams to, i.e. where a datagram
   * bridge in front of this listener receives them (the sandbox launcher's loopback UDP port).
   * Every datagram's destination is judged by `authorizeUdp` and the guard, and audited.
   * `undefined`: UDP ASSOCIATE is refused and no datagram channel is accepted.
   */
  readonly udp?: { readonly announce: { readonly host: '127.0.0.1' | '::1'; readonly port: number }; readonly limits?: Partial<UdpRelayLimits> };
}

export interface EgressProxy {
  /** `{ path }` for a unix socket, `{ host, port }` for TCP. */
  readonly address: { readonly path: string } | { readonly host: string; readonly port: number };
  /** `http://127.0.0.1:port` for TCP listeners (for HTTP_PROXY); undefined for unix sockets. */
  readonly url: string | undefined;
  /** Stops listening and destroys open tunnels. */
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

/**
 * A CONNECT authority: a host (name or IPv4 in any spelling the URL parser then canonicalises,
 * percent-escapes included) or a bracketed IPv6 literal, then decimal port digits. No userinfo,
 * path, query or fragment can match; the URL parser decides the host and the port's range.
 */
const CONNECT_AUTHORITY = /^(?:[A-Za-z0-9_.%-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):\d{1,10}$/;

function denyBody(d: Deny): string {
  return `${d.reason}${d.hint ? `; ${d.hint}` : ''}\n`;
}

function refuseHttp(res: ServerResponse, d: Deny, status = 403): void {
  if (res.headersSent) return void res.destroy();
  const text = denyBody(d);
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-trust-deny': d.code, 'content-length': Buffer.byteLength(text), connection: 'close' });
  res.end(text);
}

function refuseTunnel(socket: Duplex, d: Deny, status = 403): void {
  const text = denyBody(d);
  const reason = status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : 'Bad Gateway';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\nx-trust-deny: ${d.code}\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
}

/**
 * An HTTP forward proxy plus CONNECT (and SOCKS5 CONNECT on the same listener), bound to one
 * principal. Every request and tunnel runs the
 * policy, the guard on the address actually dialled, and records one audit event. Denials get
 * `403` with `x-trust-deny: <code>` and the reason as a text body.
 *
 * @example
 * const proxy = await createEgressProxy({ policy, principal: { kind: 'process', id: 'run-1' }, listen: { path: '/run/trust/run-1.sock' } });
 * // HTTPS_PROXY for the sandboxed process points at a bridge to this socket.
 * await proxy.close();
 */
export async function createEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  if (!('path' in options.listen) && options.listen.host !== '127.0.0.1' && options.listen.host !== '::1') {
    throw new TrustError('EGRESS_OPTIONS_INVALID', `egress proxy must listen on loopback or a unix socket, not ${String(options.listen.host)}`, {
      hint: "use listen: { host: '127.0.0.1', port: 0 } or listen: { path: '/run/…/proxy.sock' }",
    });
  }
  const guard = toGuard(options.guard);
  const limits = resolveLimits(options.limits);
  const dialled = new Map<string, string>();
  // Made at the first forwarded request: many listeners (one per sandboxed run) never see one.
  // None is made once closing has begun (a request still being judged then fails, as it would on
  // a closed one).
  let dispatcher: Dispatcher | undefined;
  let closing = false;
  const forwarder = (): Dispatcher => {
    if (closing) throw new Error('the egress proxy is closed');
    return (dispatcher ??= createEgressDispatcher({ guard, limits, onDial: (d) => dialled.set(hostPort(d.host, d.port), d.ip) }));
  };
  const principal = options.principal;
  const now = Date.now;
  const sockets = new Set<Socket | Duplex>();
  const udpRelay = options.udp ? createUdpRelay({ policy: options.policy, guard, audit: options.audit, now }, principal, options.udp.limits) : undefined;

  const audit = (target: string, decision: Decision, started: number, extra: Partial<Parameters<typeof recordEgress>[1]> = {}) =>
    recordEgress(options.audit, { principal, action: extra.method === 'CONNECT' && options.connectAs === 'tcp' ? 'egress.tcp' : 'egress.http', target, decision, started, policy: options.policy.name, via: 'proxy', ...extra }, now);

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = now();
    const method = (req.method ?? 'GET').toUpperCase();
    const target = parseTarget(req.url ?? '', ['http:', 'https:']);
    if (isDenyResult(target)) {
      audit(redactUrl(req.url ?? ''), target, started, { method });
      return refuseHttp(res, target, target.code === 'EGRESS_URL_INVALID' ? 400 : 403);
    }
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = (req.rawHeaders[i] ?? '').toLowerCase();
      if (!HOP_BY_HOP.has(name)) headers.append(name, req.rawHeaders[i + 1] ?? '');
    }
    const where = redactUrl(target.url);
    const auth = await authorizeHttp(
      options.policy,
      { method, url: target.url.href, scheme: target.scheme as 'http:' | 'https:', host: target.host, port: target.port, path: `${target.url.pathname}${target.url.search}`, headers },
      { principal, capability: 'http' },
    );
    if (!auth.decision.allow) {
      audit(where, auth.decision, started, { method });
      return refuseHttp(res, auth.decision as Deny);
    }
    const verdict = await guard.resolveHost(target.host, target.port);
    if (!verdict.allow) {
      audit(where, verdict, started, { method, addresses: verdict.addresses });
      return refuseHttp(res, verdict);
    }
    try {
      const hasBody = !(method === 'GET' || method === 'HEAD') && (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined);
      const up = await forwarder().request({
        origin: target.url.origin,
        path: `${target.url.pathname}${target.url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: [...headers].flat(),
        body: hasBody ? req : null,
      });
      const out: string[] = [];
      for (const [k, v] of Object.entries(up.headers)) {
        if (HOP_BY_HOP.has(k) || v === undefined) continue;
        for (const one of Array.isArray(v) ? v : [v]) out.push(k, one);
      }
      audit(where, auth.decision, started, { method, addresses: verdict.addresses, status: up.statusCode, dialled: dialled.get(hostPort(target.host, target.port)) });
      res.writeHead(up.statusCode, out);
      let seen = 0;
      for await (const chunk of up.body) {
        seen += (chunk as Buffer).length;
        if (seen > limits.maxResponseBytes) {
          up.body.destroy();
          res.destroy();
          return;
        }
        if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      }
      res.end();
    } catch (e) {
      const err = toEgressError(e, { where, secrets: auth.secrets });
      const d = err.decision ?? deny(err.code, err.message);
      if (err.decision && err.decision.rule !== 'limits') audit(where, err.decision, started, { method, addresses: verdict.addresses });
      else audit(where, auth.decision, started, { method, addresses: verdict.addresses, failure: err.code });
      refuseHttp(res, d, err.decision && err.decision.rule !== 'limits' ? 403 : 502);
    }
  };

  const onConnect = async (req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> => {
    const started = now();
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    // The CONNECT authority is parsed strictly (host:port, nothing else) before anything else
    // sees it, and a refused one is never echoed: it may carry userinfo, a path or a query.
    const authority = req.url ?? '';
    const target = CONNECT_AUTHORITY.test(authority) ? parseTarget(`https://${authority}/`, ['https:']) : undefined;
    if (target === undefined || isDenyResult(target) || target.port < 1) {
      const d = deny('EGRESS_TARGET_INVALID', 'egress denied: a CONNECT target must be exactly host:port', { rule: 'target-syntax', hint: 'send CONNECT host:443 (no userinfo, path or query)' });
      audit('connect://<invalid>', d, started, { method: 'CONNECT' });
      return refuseTunnel(client, d, 400);
    }
    const where = hostPort(target.host, target.port);
    let decision: Decision;
    if (options.connectAs === 'tcp') {
      decision = await authorizePeer(options.policy, 'tcp', { host: target.host, port: target.port }, { principal, capability: 'tcp' });
    } else {
      const auth = await authorizeHttp(
        options.policy,
        { method: 'CONNECT', url: target.url.href, scheme: 'https:', host: target.host, port: target.port, path: '/', headers: new Headers() },
        { principal, capability: 'http' },
      );
      decision = auth.decision;
    }
    if (!decision.allow) {
      audit(`connect://${where}`, decision, started, { method: 'CONNECT' });
      return refuseTunnel(client, decision as Deny);
    }
    const verdict = await guard.resolveHost(target.host, target.port);
    if (!verdict.allow) {
      audit(`connect://${where}`, verdict, started, { method: 'CONNECT', addresses: verdict.addresses });
      return refuseTunnel(client, verdict);
    }
    const ip = verdict.addresses[0] as string;
    const upstream = connect({ host: ip, port: target.port, timeout: limits.connectTimeoutMs });
    sockets.add(upstream);
    upstream.once('timeout', () => upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'UND_ERR_CONNECT_TIMEOUT' })));
    upstream.once('error', (e) => {
      if (upstream.connecting || !client.writable) {
        const err = toEgressError(e, { where });
        audit(`connect://${where}`, decision, started, { method: 'CONNECT', addresses: verdict.addresses, failure: err.code });
        refuseTunnel(client, err.decision ?? deny(err.code, err.message), 502);
      }
      client.destroy();
    });
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      audit(`connect://${where}`, decision, started, { method: 'CONNECT', addresses: verdict.addresses, dialled: ip });
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
  };

  const server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    onRequest(req, res).catch(() => refuseHttp(res, deny('EGRESS_PROTOCOL', 'egress proxy failed'), 502));
  });
  server.on('connect', (req, socket, head) => {
    onConnect(req, socket, head).catch(() => socket.destroy());
  });
  server.on('clientError', (_e, s) => s.destroy());

  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  // One listener speaks both HTTP (forward + CONNECT) and SOCKS5: the first byte decides
  // (0x05 is never the start of an HTTP request line).
  const front = createNetServer((socket) => {
    track(socket);
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first[0] === 0x00 && udpRelay) {
        udpRelay.channel(socket, first.subarray(1));
        return;
      }
      if (first[0] === 0x05) {
        socket.resume();
        handleSocks5(socket, first, {
          policy: options.policy,
          guard,
          principal,
          connectTimeoutMs: limits.connectTimeoutMs,
          track,
          ...(udpRelay && options.udp ? { udp: { relay: udpRelay, announce: options.udp.announce } } : {}),
          audit: (target, decision, started, extra) =>
            recordEgress(options.audit, { principal, action: 'egress.tcp', target, decision, started, policy: options.policy.name, via: 'socks5', ...extra }, now),
        });
        return;
      }
      socket.unshift(first);
      server.emit('connection', socket);
      socket.resume();
    });
    socket.on('error', () => socket.destroy());
  });

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
      await new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      await udpRelay?.close();
      await (dispatcher as unknown as { close(): Promise<void> } | undefined)?.close();
    },
  };
}
