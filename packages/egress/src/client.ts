import { deniedError, type AuditSink, type Deny, type EgressPolicy, type Principal } from '@trust/core';
import { WebSocket, type Response } from 'undici';
import type { Socket } from 'node:net';
import { z } from 'zod';
import { recordEgress } from './audit.js';
import { createEgressDispatcher, guardField, toGuard } from './dispatcher.js';
import { auditSchema, checkEgressOptions, duration, fn, policySchema } from './egress-options.js';
import type { Engine } from './engine.js';
import type { EgressGuard } from './guard.js';
import type { GuardOptions } from './guard-options.js';
import {
  egressFetch,
  egressRequest,
  type EgressCallContext,
  type EgressFetchInit,
  type EgressRawResponse,
} from './http-fetch.js';
import { limitsSchema, resolveLimits, type EgressLimits } from './limits.js';
import { authorizeHttp } from './policy-call.js';
import { redactUrl } from './redact.js';
import { egressConnectTcp, egressSendUdp, type SocketCallContext } from './sockets.js';
import { hostPort, isDenyResult, parseTarget } from './target.js';
import { openEgressUdp, type EgressUdpSocket, type UdpOpenOptions } from './udp-socket.js';

export interface EgressClientOptions {
  /** Decides destinations and may inject headers. Required: there is no default allow. */
  readonly policy: EgressPolicy;
  /** Address guard (a compiled guard, or options). Default: mode `default`, no protected ports. */
  readonly guard?: EgressGuard | GuardOptions;
  /** Where one event per decision goes. `undefined`: no audit. */
  readonly audit?: AuditSink;
  readonly limits?: EgressLimits;
  /** Follow https→http redirects (default false: `EGRESS_DOWNGRADE`). */
  readonly allowDowngrade?: boolean;
  /** Clock for durations (default `Date.now`). */
  readonly now?: () => number;
  /**
   * How long `close()` lets requests in flight (a response body still streaming) finish before
   * it destroys their connections (default 1000 ms).
   */
  readonly closeGraceMs?: number;
}

const clientOptionsSchema = z
  .object({
    policy: policySchema,
    guard: guardField,
    audit: auditSchema.optional(),
    limits: limitsSchema.optional(),
    allowDowngrade: z.boolean().optional().describe('follow https→http redirects, e.g. false'),
    now: fn('clock for durations, e.g. Date.now').optional(),
    closeGraceMs: duration('grace for requests in flight at close() in ms, e.g. 1000', 0).optional(),
  })
  .strict();

export interface WebSocketOptions {
  readonly principal: Principal;
  readonly protocols?: string | string[];
  /** Extra handshake headers; the policy may add more (e.g. credentials). */
  readonly headers?: Record<string, string>;
}

/** The one outbound path: every method runs policy, guard, pinned connect and audit. */
export interface EgressClient {
  /** Guarded fetch (undici `Response`). */
  fetch(url: string | URL, init: EgressFetchInit | undefined, call: EgressCallContext): Promise<Response>;
  /**
   * Same checks, redirects, limits and audit as `fetch`, answering with undici's raw shape
   * (`statusCode`, `headers`, a Node `Readable` body; no content decoding). Faster for bulk use.
   */
  request(url: string | URL, init: EgressFetchInit | undefined, call: EgressCallContext): Promise<EgressRawResponse>;
  /** Opens a ws:/wss: WebSocket through the same dispatcher; resolves once the checks allow it. */
  webSocket(url: string | URL, options: WebSocketOptions): Promise<WebSocket>;
  /** A TCP connection to a vetted address (needs `policy.authorizeTcp`). Never binds or listens. */
  connectTcp(host: string, port: number, call: SocketCallContext): Promise<Socket>;
  /** Sends one UDP datagram to a vetted address (needs `policy.authorizeUdp`). */
  sendUdp(host: string, port: number, data: Uint8Array | string, call: SocketCallContext): Promise<void>;
  /**
   * A UDP socket connected to one vetted peer (needs `policy.authorizeUdp`): `send`, `receive`
   * (only datagrams from that peer arrive), `close`. Judged and audited once, at open. Never
   * binds to a chosen port or listens.
   */
  openUdp(host: string, port: number, options: UdpOpenOptions): Promise<EgressUdpSocket>;
  /** The guard this client enforces. */
  readonly guard: EgressGuard;
  /**
   * Closes pooled connections and every UDP socket opened with `openUdp`. Requests still in
   * flight get `closeGraceMs`, then their connections are destroyed (their bodies then fail), so
   * close() returns whatever a peer does.
   */
  close(): Promise<void>;
}

/**
 * Creates the guarded egress client. The options are checked once, strictly: an unknown key
 * (`EGRESS_OPTIONS_UNKNOWN_KEY`, with "did you mean") or a wrong value throws
 * `EGRESS_OPTIONS_INVALID` listing every problem.
 *
 * @example
 * const client = createEgressClient({
 *   policy: {
 *     name: 'demo',
 *     authorizeHttp: (req) =>
 *       req.host === 'api.example.com'
 *         ? { allow: true, rule: 'demo' }
 *         : { allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'not allowed' },
 *   },
 *   guard: { mode: 'strict' },
 * });
 * const res = await client.fetch('https://api.example.com/v1', undefined, { principal: { kind: 'plugin', id: 'p1' } });
 */
export function createEgressClient(options: EgressClientOptions): EgressClient {
  checkEgressOptions('createEgressClient', clientOptionsSchema, options);
  const guard = toGuard(options.guard);
  const limits = resolveLimits(options.limits);
  const closeGraceMs = options.closeGraceMs ?? 1000;
  const dialled = new Map<string, string>();
  const udpSockets = new Set<EgressUdpSocket>();
  const dispatcher = createEgressDispatcher({
    guard,
    limits,
    onDial: (d) => {
      if (dialled.size > 4096) dialled.clear();
      dialled.set(hostPort(d.host, d.port), d.ip);
    },
  });
  const engine: Engine = {
    policy: options.policy,
    guard,
    audit: options.audit,
    limits,
    dispatcher,
    dialled,
    allowDowngrade: options.allowDowngrade === true,
    now: options.now ?? Date.now,
  };

  const webSocket = async (url: string | URL, ws: WebSocketOptions): Promise<WebSocket> => {
    const started = engine.now();
    const audit = (
      decision: Parameters<typeof recordEgress>[1]['decision'],
      extra: Partial<Parameters<typeof recordEgress>[1]> = {},
    ) =>
      recordEgress(
        engine.audit,
        {
          principal: ws.principal,
          action: 'egress.ws',
          target: redactUrl(url),
          decision,
          started,
          method: 'GET',
          policy: engine.policy.name,
          ...extra,
        },
        engine.now,
      );
    const target = parseTarget(url, ['ws:', 'wss:']);
    if (isDenyResult(target)) {
      audit(target);
      throw deniedError(target);
    }
    const headers = new Headers(ws.headers);
    const auth = await authorizeHttp(
      engine.policy,
      {
        method: 'GET',
        url: target.url.href,
        scheme: target.scheme as 'ws:' | 'wss:',
        host: target.host,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        headers,
      },
      { principal: ws.principal, capability: 'http' },
    );
    if (!auth.decision.allow) {
      audit(auth.decision);
      throw deniedError(auth.decision as Deny);
    }
    const verdict = await guard.resolveHost(target.host, target.port);
    if (!verdict.allow) {
      audit(verdict, { addresses: verdict.addresses });
      throw deniedError(verdict);
    }
    audit(auth.decision, { addresses: verdict.addresses });
    // undici's handshake is a fetch with redirect 'error' through this dispatcher, so the pinned
    // connector judges the address it dials.
    return new WebSocket(target.url.href, { protocols: ws.protocols, dispatcher, headers: [...headers] });
  };

  return Object.freeze({
    guard,
    fetch: (url: string | URL, init: EgressFetchInit | undefined, call: EgressCallContext) =>
      egressFetch(engine, url, init ?? {}, call),
    request: (url: string | URL, init: EgressFetchInit | undefined, call: EgressCallContext) =>
      egressRequest(engine, url, init ?? {}, call),
    webSocket,
    connectTcp: (host: string, port: number, call: SocketCallContext) => egressConnectTcp(engine, host, port, call),
    sendUdp: (host: string, port: number, data: Uint8Array | string, call: SocketCallContext) =>
      egressSendUdp(engine, host, port, data, call),
    openUdp: async (host: string, port: number, udp: UdpOpenOptions) => {
      const socket = await openEgressUdp(engine, host, port, udp);
      udpSockets.add(socket);
      const close = socket.close;
      return Object.freeze({
        ...socket,
        close: async () => {
          udpSockets.delete(socket);
          return close();
        },
      });
    },
    close: async () => {
      await Promise.all([...udpSockets].map((s) => s.close()));
      udpSockets.clear();
      // Requests in flight get the grace period; then destroy ends them. (The dispatcher's own
      // close() would wait for them forever under a dripping peer, and a destroy after a close
      // no longer aborts them.)
      const until = Date.now() + closeGraceMs;
      const busy = (): boolean => Object.values(dispatcher.stats).some((s) => s.running > 0 || s.pending > 0);
      while (busy() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      await dispatcher.destroy();
    },
  });
}
