import { createEgressClient, type EgressClient, type EgressLimits, type GuardOptions } from '@trust/egress';
import { allow, deny, type AuditSink, type EgressPolicy, type Principal } from '@trust/core';
import type { BridgeHttpRequest, BridgeHttpResult, BridgeTcpResult } from './net-protocol.js';

/** Options the host forwards to `@trust/egress` for a plugin's network client. */
export interface BrokerOptions {
  readonly principal: Principal;
  readonly policy: EgressPolicy;
  /** Address-guard options for egress (`mode` defaults to `'strict'`). */
  readonly guard?: GuardOptions;
  readonly audit?: AuditSink;
  /** Egress limits (timeouts, response size); `httpTimeoutMs` caps every request. */
  readonly limits?: EgressLimits;
  readonly httpTimeoutMs?: number;
}


/** A policy for the coarse tier (`network`/`sockets`): every destination, so only the address floor applies. */
export const FLOOR_ONLY_POLICY: EgressPolicy = Object.freeze({
  name: 'network-floor',
  authorizeHttp: () => allow('network-floor'),
  authorizeTcp: () => allow('network-floor'),
  authorizeUdp: () => allow('network-floor'),
});

/**
 * The policy a plugin's egress client runs: HTTP through the plugin's policy only with `http`;
 * TCP/UDP through it only with `tcp`/`udp`; with `network`/`sockets`, TCP/UDP to any
 * destination the address floor allows. Anything not granted is denied.
 */
export function composePolicy(plan: { http: boolean; tcp: boolean; udp: boolean; coarse: boolean }, policy: EgressPolicy | undefined): EgressPolicy {
  const notGranted = (what: string) => () => deny('EGRESS_POLICY_DENIED', `${what} is not granted to this plugin`, { hint: `add "${what}" to the plugin's capabilities` });
  const composed: EgressPolicy = {
    name: `${policy?.name ?? 'no-policy'}${plan.coarse ? '+network-floor' : ''}`,
    authorizeHttp: plan.http && policy ? (r, c) => policy.authorizeHttp(r, c) : notGranted('http'),
    // granted but the policy has no authorizeTcp/Udp: leave it absent, which egress denies
    authorizeTcp: plan.coarse ? FLOOR_ONLY_POLICY.authorizeTcp! : !plan.tcp ? notGranted('tcp') : policy?.authorizeTcp ? (p, c) => policy.authorizeTcp!(p, c) : undefined,
    authorizeUdp: plan.coarse ? FLOOR_ONLY_POLICY.authorizeUdp! : !plan.udp ? notGranted('udp') : policy?.authorizeUdp ? (p, c) => policy.authorizeUdp!(p, c) : undefined,
  };
  return Object.freeze(composed);
}

function classify(e: unknown): { error: 'denied' | 'timeout' | 'refused' | 'dns' | 'too-large' | 'other'; message: string } {
  const code = String((e as { code?: unknown })?.code ?? '');
  const message = String((e as Error)?.message ?? e);
  if (code === 'EGRESS_TIMEOUT' || code === 'EGRESS_ABORTED' || code === 'EGRESS_DNS_TIMEOUT') return { error: 'timeout', message };
  if (code === 'EGRESS_RESPONSE_TOO_LARGE' || code === 'EGRESS_HEADERS_TOO_LARGE') return { error: 'too-large', message };
  if (code === 'EGRESS_DNS_FAILED' || code === 'EGRESS_DNS_EMPTY') return { error: 'dns', message };
  if (code === 'EGRESS_CONNECT_FAILED') return { error: 'refused', message };
  if (code.startsWith('EGRESS_') || /DENIED/.test(code)) return { error: 'denied', message };
  return { error: 'other', message };
}

/**
 * The main-thread side of a plugin's network: answers the worker's bridge calls through an
 * `@trust/egress` client created for this plugin (its principal, its policy, the host's guard
 * and audit). The host never opens a socket itself.
 */
export function createNetworkBroker(options: BrokerOptions): { handle(op: string, payload: unknown): Promise<unknown>; close(): void } {
  const client: EgressClient = createEgressClient({
    policy: options.policy,
    guard: { mode: 'strict', ...(options.guard ?? {}) },
    ...(options.audit ? { audit: options.audit } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const sockets = new Map<number, { socket: import('node:net').Socket; chunks: Buffer[]; ended: boolean; wake: (() => void) | undefined }>();
  let nextId = 1;

  async function http(req: BridgeHttpRequest): Promise<BridgeHttpResult> {
    const limit = [req.timeoutMs, options.httpTimeoutMs].filter((x): x is number => typeof x === 'number');
    const signal = limit.length > 0 ? AbortSignal.timeout(Math.min(...limit)) : undefined;
    try {
      const res = await client.fetch(req.url, { method: req.method, headers: req.headers.map(([k, v]) => [k, v] as [string, string]), ...(req.body ? { body: req.body } : {}), ...(signal ? { signal } : {}), redirect: 'manual' }, { principal: options.principal, capability: 'http' });
      const body = new Uint8Array(await res.arrayBuffer());
      return { kind: 'ok', status: res.status, headers: [...res.headers.entries()], body };
    } catch (e) {
      if (signal?.aborted) return { kind: 'error', error: 'timeout', message: `request exceeded ${Math.min(...limit)} ms` };
      return { kind: 'error', ...classify(e) };
    }
  }

  async function tcp(op: string, p: { id?: number; host?: string; port?: number; max?: number; block?: boolean; data?: Uint8Array }): Promise<BridgeTcpResult> {
    if (op === 'udp.send') {
      try {
        await client.sendUdp(p.host!, p.port!, p.data ?? new Uint8Array(0), { principal: options.principal });
        return { kind: 'ok' };
      } catch (e) {
        const c = classify(e);
        return { kind: 'error', error: c.error === 'dns' || c.error === 'too-large' ? 'other' : c.error, message: c.message };
      }
    }
    if (op === 'tcp.connect') {
      try {
        const socket = await client.connectTcp(p.host!, p.port!, { principal: options.principal });
        const id = nextId++;
        const entry = { socket, chunks: [] as Buffer[], ended: false, wake: undefined as (() => void) | undefined };
        socket.on('data', (c: Buffer) => {
          entry.chunks.push(c);
          entry.wake?.();
        });
        const end = () => {
          entry.ended = true;
          entry.wake?.();
        };
        socket.on('end', end);
        socket.on('close', end);
        socket.on('error', end);
        sockets.set(id, entry);
        return { kind: 'ok', id };
      } catch (e) {
        const c = classify(e);
        return { kind: 'error', error: c.error === 'dns' || c.error === 'too-large' ? 'other' : c.error, message: c.message };
      }
    }
    const entry = sockets.get(p.id ?? -1);
    if (!entry) return { kind: 'error', error: 'closed', message: 'no such connection' };
    if (op === 'tcp.write') {
      await new Promise<void>((resolve, reject) => entry.socket.write(Buffer.from(p.data ?? new Uint8Array(0)), (e) => (e ? reject(e) : resolve())));
      return { kind: 'ok' };
    }
    if (op === 'tcp.read') {
      if (entry.chunks.length === 0 && !entry.ended && p.block) await new Promise<void>((resolve) => (entry.wake = resolve));
      entry.wake = undefined;
      if (entry.chunks.length === 0) return entry.ended ? { kind: 'ok', closed: true } : { kind: 'ok', data: new Uint8Array(0) };
      const all = Buffer.concat(entry.chunks);
      const take = all.subarray(0, Math.max(1, p.max ?? all.length));
      entry.chunks = take.length < all.length ? [all.subarray(take.length)] : [];
      return { kind: 'ok', data: new Uint8Array(take) };
    }
    if (op === 'tcp.close') {
      entry.socket.destroy();
      sockets.delete(p.id!);
      return { kind: 'ok' };
    }
    return { kind: 'error', error: 'other', message: `unknown op ${op}` };
  }

  return {
    handle(op, payload) {
      if (op === 'http') return http(payload as BridgeHttpRequest);
      return tcp(op, payload as never);
    },
    close() {
      for (const s of sockets.values()) s.socket.destroy();
      sockets.clear();
      client.close().catch(() => undefined); // pooled connections may already be destroyed
    },
  };
}
