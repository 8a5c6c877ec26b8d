// The egress policy a sandbox run ran under, as its run-log record keeps it: the policy document
// (the file format, before compiling) in canonical JSON with its SHA-256, so the studio's audit
// timeline can link a denial of any recorded run to its rule, also after a restart. Literal
// header values are secrets: they are replaced before the document is serialised, never stored.
import { createHash } from 'node:crypto';
import { canonicalJson } from '@trust/core';

/** The largest policy document (canonical JSON, UTF-8 bytes) a record keeps; a larger one keeps only its hash. */
export const MAX_RECORDED_POLICY_BYTES = 16 * 1024;

/** What stands in for a literal header value in a recorded policy. */
export const REDACTED_HEADER = '[literal value not recorded]';

/** The egress policy of a run in its record. */
export interface RecordedEgressPolicy {
  /** SHA-256 (hex) of `json`, or of the canonical JSON that was too large to keep. */
  readonly sha256: string;
  /** The canonical JSON of the policy document, literal header values replaced; null when too large. */
  readonly json: string | null;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The record of a run's egress policy document (`null` in, `null` out: the run had none).
 *
 * @example
 * sandboxRunRecord({ ...run, egressPolicy: recordEgressPolicy(JSON.parse(policyText)) });
 */
export function recordEgressPolicy(document: unknown): RecordedEgressPolicy | null {
  if (document === null || document === undefined) return null;
  const json = canonicalJson(redactPolicyHeaders(document));
  const hash = sha256(json);
  return Buffer.byteLength(json, 'utf8') > MAX_RECORDED_POLICY_BYTES
    ? { sha256: hash, json: null }
    : { sha256: hash, json };
}

/**
 * Reads the policy back from a record (an untrusted line of the run log): the document, `null`
 * when the run was recorded without an egress policy, or `undefined` when it is unknown (an old
 * record, a policy too large to keep, or a document that does not match its hash).
 *
 * @example
 * const doc = recordedPolicyDocument(record.egressPolicy);
 */
export function recordedPolicyDocument(recorded: unknown): { sha256: string; document: unknown } | null | undefined {
  if (recorded === null) return null;
  if (typeof recorded !== 'object' || recorded === undefined || Array.isArray(recorded)) return undefined;
  const { sha256: hash, json } = recorded as { sha256?: unknown; json?: unknown };
  if (typeof hash !== 'string' || typeof json !== 'string') return undefined;
  if (Buffer.byteLength(json, 'utf8') > MAX_RECORDED_POLICY_BYTES || sha256(json) !== hash) return undefined;
  try {
    return { sha256: hash, document: JSON.parse(json) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * A copy of a policy document with every literal header value of every `inject` rule replaced by
 * {@link REDACTED_HEADER} (`{ env: NAME }` references stay): what a record keeps and what a view shows.
 *
 * @example
 * redactPolicyHeaders({ v: 1, http: { inject: [{ hosts: ['a.example'], headers: { authorization: 'Bearer x' } }] } });
 */
export function redactPolicyHeaders(value: unknown, key = ''): unknown {
  if (Array.isArray(value))
    return value.map((v) => (key === 'inject' && isObject(v) ? redactInjectRule(v) : redactPolicyHeaders(v)));
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactPolicyHeaders(v, k)]));
}

function redactInjectRule(rule: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...rule };
  if (isObject(rule.headers))
    out.headers = Object.fromEntries(
      Object.entries(rule.headers).map(([h, v]) => [h, typeof v === 'string' ? REDACTED_HEADER : v]),
    );
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
