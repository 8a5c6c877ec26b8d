import type { Principal } from '@trust/core';
import type { LocalMesh } from './local-mesh.js';
import type { AgentMessage } from './message.js';
import { MESH_INBOX_PREFIX } from './mesh-http.js';

/** The slice of an egress client delivery needs; every network byte goes through it. */
export interface DeliveryFetch {
  fetch(url: string, init: { method: string; headers: Record<string, string>; body: string }, ctx: { principal: Principal }): Promise<{ status: number }>;
}

export interface DeliveryResult {
  readonly status: 'delivered' | 'failed';
  readonly attempts: number;
  readonly via: 'local' | 'http';
  readonly statusCode?: number;
  readonly code?: string;
  readonly reason?: string;
}

export interface DeliveryOptions {
  readonly mesh?: LocalMesh;
  readonly egress?: DeliveryFetch;
  readonly principal: Principal;
  /** Attempts in all, including the first. Default 4. */
  readonly maxAttempts?: number;
  /** First backoff in ms, doubled each retry, capped at `maxBackoffMs`. Defaults 200 and 5000. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const sleepReal = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Delivers a signed message: to a local agent through its ingress, or by POST to
 * `<address>/mesh/v1/inbox/<did>` through the egress client. Transient failures (network
 * errors, 429, 5xx) are retried with bounded exponential backoff; a refusal is final.
 */
export async function deliverMessage(message: AgentMessage, address: string | undefined, options: DeliveryOptions): Promise<DeliveryResult> {
  const local = options.mesh?.lookup(message.to);
  if (local && address === undefined) {
    const result = await local(JSON.stringify(message), { transport: 'local' });
    return result.accepted
      ? { status: 'delivered', attempts: 1, via: 'local' }
      : { status: 'failed', attempts: 1, via: 'local', code: result.decision.code, reason: result.decision.reason };
  }
  if (address === undefined) return { status: 'failed', attempts: 0, via: 'local', code: 'MESSAGE_NO_ROUTE', reason: 'the recipient is not local and no address was given' };
  if (!options.egress) return { status: 'failed', attempts: 0, via: 'http', code: 'MESSAGE_NO_EGRESS', reason: 'remote delivery needs an egress client' };

  const url = new URL(MESH_INBOX_PREFIX + encodeURIComponent(message.to), address).toString();
  const max = Math.max(1, options.maxAttempts ?? 4);
  const sleep = options.sleep ?? sleepReal;
  let backoff = options.backoffMs ?? 200;
  let last: DeliveryResult = { status: 'failed', attempts: 0, via: 'http' };
  for (let attempt = 1; attempt <= max; attempt++) {
    try {
      const res = await options.egress.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) }, { principal: options.principal });
      if (res.status >= 200 && res.status < 300) return { status: 'delivered', attempts: attempt, via: 'http', statusCode: res.status };
      last = { status: 'failed', attempts: attempt, via: 'http', statusCode: res.status, code: 'MESSAGE_REFUSED', reason: `the recipient answered ${res.status}` };
      if (res.status !== 429 && res.status < 500) return last;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      last = { status: 'failed', attempts: attempt, via: 'http', code: typeof code === 'string' ? code : 'MESSAGE_NETWORK', reason: 'delivery failed' };
      // An egress denial will not change on retry.
      if (typeof code === 'string' && code.startsWith('EGRESS_') && code !== 'EGRESS_TIMEOUT') return last;
    }
    if (attempt < max) {
      await sleep(backoff);
      backoff = Math.min(backoff * 2, options.maxBackoffMs ?? 5000);
    }
  }
  return last;
}
