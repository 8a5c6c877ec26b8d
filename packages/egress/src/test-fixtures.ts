// Test-only helpers (not exported from the package).
import { createHash } from 'node:crypto';
import {
  isTrustError,
  type AuditEvent,
  type AuditInput,
  type AuditSink,
  type Decision,
  type EgressHttpRequest,
  type EgressPolicy,
  type Principal,
} from '@trust/core';

export const principal: Principal = Object.freeze({ kind: 'plugin', id: 'plugin-under-test' });

/** A memory sink that seals like the real ones (enough for assertions). */
export function memorySink(): AuditSink & { readonly events: AuditEvent[]; json(): string } {
  const events: AuditEvent[] = [];
  return {
    events,
    record(input: AuditInput): AuditEvent {
      const prev = events.at(-1)?.hash ?? '0'.repeat(64);
      const body = { v: 1 as const, time: new Date().toISOString(), prev, ...input };
      const event = { ...body, hash: createHash('sha256').update(JSON.stringify(body)).digest('hex') };
      events.push(event);
      return event;
    },
    json: () => JSON.stringify(events),
  };
}

export const allowAll: EgressPolicy = {
  name: 'allow-all',
  authorizeHttp: () => ({ allow: true, rule: 'allow-all' }),
};

/** Allows everything and injects `headers` for requests to `host`; counts calls. */
export function injecting(
  host: string,
  headers: Record<string, string>,
): EgressPolicy & { calls: EgressHttpRequest[] } {
  const calls: EgressHttpRequest[] = [];
  return {
    name: 'inject',
    calls,
    authorizeHttp(req): Decision {
      calls.push(req);
      if (req.host === host) for (const [k, v] of Object.entries(headers)) req.headers.set(k, v);
      return { allow: true, rule: 'inject' };
    },
  };
}

/** The code a promise rejects with (`'resolved'` when it does not); a non-trust error is rethrown. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (isTrustError(e)) return e.code;
    throw e;
  }
}
