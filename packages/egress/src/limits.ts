/** Size and time limits of the egress client. Every field has a safe default. */
export interface EgressLimits {
  /** Redirect hops followed before `EGRESS_TOO_MANY_REDIRECTS` (default 5). */
  readonly maxRedirects?: number;
  /** Decoded response body bytes before `EGRESS_RESPONSE_TOO_LARGE` (default 10 MiB). */
  readonly maxResponseBytes?: number;
  /** Total response header bytes (default 64 KiB); more is `EGRESS_HEADERS_TOO_LARGE`. */
  readonly maxHeaderBytes?: number;
  /** TCP + TLS connect (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** Until the response headers are complete (default 30 s): the slow-loris bound. */
  readonly headersTimeoutMs?: number;
  /** Idle time between body chunks (default 30 s). */
  readonly bodyTimeoutMs?: number;
  /** The whole exchange including redirects and reading the body (default 60 s). */
  readonly totalTimeoutMs?: number;
}

export type ResolvedLimits = Required<EgressLimits>;

export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  maxRedirects: 5,
  maxResponseBytes: 10 * 1024 * 1024,
  maxHeaderBytes: 64 * 1024,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  totalTimeoutMs: 60_000,
});

export function resolveLimits(limits: EgressLimits = {}): ResolvedLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(limits) as [keyof ResolvedLimits, number | undefined][]) {
    if (v === undefined) continue;
    if (!(typeof v === 'number' && v >= 0 && Number.isFinite(v)))
      throw new RangeError(`egress limit ${k} must be a finite number >= 0`);
    out[k] = v;
  }
  return Object.freeze(out);
}
