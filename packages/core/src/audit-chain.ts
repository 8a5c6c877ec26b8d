import type { AuditEvent, AuditInput } from './audit-event.js';
import { canonicalJson } from './canonical-json.js';
import { PRINCIPAL_KINDS } from './principal.js';
import { sha256Hex } from './sha256.js';

/**
 * The `prev` of the first event of a chain: 64 zeros.
 *
 * @example
 * sealEvent(input, GENESIS_HASH, new Date().toISOString()).prev === GENESIS_HASH; // true
 */
export const GENESIS_HASH = '0'.repeat(64);

/** The result of `verifyChain`: the chain's length and head hash, or the first broken link. */
export type ChainVerdict =
  | { readonly ok: true; readonly count: number; readonly head: string }
  | {
      readonly ok: false;
      readonly index: number;
      readonly code:
        | 'AUDIT_HASH_MISMATCH'
        | 'AUDIT_PREV_MISMATCH'
        | 'AUDIT_VERSION'
        | 'AUDIT_MALFORMED'
        | 'AUDIT_TAIL_MISMATCH';
      readonly reason: string;
    };

const HASH = /^[0-9a-f]{64}$/;

/** The event without `hash`, with absent optional fields removed, in a fixed shape. */
function body(input: AuditInput, prev: string, time: string): Omit<AuditEvent, 'hash'> {
  const e: Record<string, unknown> = {
    v: 1,
    time,
    principal:
      input.principal.agent === undefined
        ? { kind: input.principal.kind, id: input.principal.id }
        : { kind: input.principal.kind, id: input.principal.id, agent: input.principal.agent },
    action: input.action,
    target: input.target,
    decision: input.decision,
  };
  if (input.rule !== undefined) e.rule = input.rule;
  if (input.code !== undefined) e.code = input.code;
  if (input.details !== undefined) e.details = input.details;
  e.prev = prev;
  return e as unknown as Omit<AuditEvent, 'hash'>;
}

/**
 * The hash an event must carry: SHA-256 of the canonical JSON of the event without `hash`.
 *
 * @example
 * computeEventHash(event) === event.hash; // true for an untouched event
 */
export function computeEventHash(event: Omit<AuditEvent, 'hash'> & { hash?: string }): string {
  const { hash: _ignored, ...rest } = event;
  return sha256Hex(canonicalJson(rest));
}

/**
 * Seals one input onto a chain: adds `v: 1`, `time`, `prev` and the `hash` covering all of them.
 * `details` must already be free of secrets.
 *
 * @example
 * const first = sealEvent(input, GENESIS_HASH, new Date().toISOString());
 * const second = sealEvent(next, first.hash, new Date().toISOString());
 */
export function sealEvent(input: AuditInput, prev: string, time: string): AuditEvent {
  const b = body(input, prev, time);
  return Object.freeze({ ...b, hash: sha256Hex(canonicalJson(b)) }) as AuditEvent;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** Why `value` is not a well-formed sealed event, or `undefined` when it is. */
export function describeMalformedEvent(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const e = value as Record<string, unknown>;
  const p = e.principal as Record<string, unknown> | undefined;
  if (typeof p !== 'object' || p === null || !PRINCIPAL_KINDS.includes(p.kind as never) || !isString(p.id))
    return 'bad principal';
  if (p.agent !== undefined && !isString(p.agent)) return 'bad principal.agent';
  if (!isString(e.time)) return 'missing time';
  if (!isString(e.action) || !isString(e.target)) return 'missing action or target';
  if (e.decision !== 'allow' && e.decision !== 'deny') return 'decision is neither allow nor deny';
  if (e.rule !== undefined && !isString(e.rule)) return 'bad rule';
  if (e.code !== undefined && !isString(e.code)) return 'bad code';
  if (e.details !== undefined && (typeof e.details !== 'object' || e.details === null || Array.isArray(e.details)))
    return 'bad details';
  if (!isString(e.prev) || !HASH.test(e.prev)) return 'prev is not a lowercase hex SHA-256';
  if (!isString(e.hash) || !HASH.test(e.hash)) return 'hash is not a lowercase hex SHA-256';
  return undefined;
}

/**
 * Checks a chain from its first event: each event must be well formed, have `v: 1`, point at the
 * previous event's hash (the first at `options.head`, default `GENESIS_HASH`) and carry its own
 * correct hash. Reports the FIRST broken link. An edited event fails at its own index; a deleted,
 * inserted or reordered event fails where the `prev` link breaks. Truncation at the end (or a
 * re-sealed tail) cannot be seen from the events alone: pass `options.tail`, the last hash as
 * stored elsewhere (an anchor file, a remote log), and a chain that does not end there fails with
 * `AUDIT_TAIL_MISMATCH`.
 *
 * @example
 * const verdict = verifyChain(sink.events());
 * if (!verdict.ok) console.log(verdict.index, verdict.code);
 */
export function verifyChain(
  events: readonly AuditEvent[],
  options: { readonly head?: string; readonly tail?: string } = {},
): ChainVerdict {
  let prev = options.head ?? GENESIS_HASH;
  for (let index = 0; index < events.length; index++) {
    const e = events[index] as unknown;
    if (typeof e === 'object' && e !== null && (e as { v?: unknown }).v !== 1) {
      return {
        ok: false,
        index,
        code: 'AUDIT_VERSION',
        reason: `event ${index} has format version ${JSON.stringify((e as { v?: unknown }).v)}, expected 1`,
      };
    }
    const malformed = describeMalformedEvent(e);
    if (malformed)
      return { ok: false, index, code: 'AUDIT_MALFORMED', reason: `event ${index} is malformed: ${malformed}` };
    const event = e as AuditEvent;
    let computed: string;
    try {
      computed = computeEventHash(event);
    } catch {
      return { ok: false, index, code: 'AUDIT_MALFORMED', reason: `event ${index} cannot be canonicalised` };
    }
    if (computed !== event.hash) {
      return {
        ok: false,
        index,
        code: 'AUDIT_HASH_MISMATCH',
        reason: `event ${index} was modified: its content does not match its hash`,
      };
    }
    if (event.prev !== prev) {
      return {
        ok: false,
        index,
        code: 'AUDIT_PREV_MISMATCH',
        reason: `event ${index} does not follow the previous event (an event was deleted, inserted or reordered)`,
      };
    }
    prev = event.hash;
  }
  if (options.tail !== undefined && options.tail !== prev) {
    return {
      ok: false,
      index: events.length,
      code: 'AUDIT_TAIL_MISMATCH',
      reason:
        `the chain ends at ${prev.slice(0, 12)}…, not at the anchored ${options.tail.slice(0, 12)}… (events ` +
        `were removed from the end or re-sealed)`,
    };
  }
  return { ok: true, count: events.length, head: prev };
}
