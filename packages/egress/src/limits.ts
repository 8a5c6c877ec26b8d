import { z } from 'zod';
import { duration } from './egress-options.js';

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

const count = (what: string) => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe(what);

/**
 * The strict schema of `EgressLimits`. Timeouts must be positive: undici reads a 0 timeout as
 * "no timeout", which would lift the slow-loris bound.
 */
export const limitsSchema = z
  .object({
    maxRedirects: count('redirect hops followed, e.g. 5 (0 follows none)'),
    maxResponseBytes: count('decoded response body bytes, e.g. 10485760'),
    maxHeaderBytes: z
      .number()
      .int()
      .positive()
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe('total response header bytes, e.g. 65536'),
    connectTimeoutMs: duration('TCP + TLS connect deadline in ms, e.g. 10000').optional(),
    headersTimeoutMs: duration('deadline for complete response headers in ms, e.g. 30000').optional(),
    bodyTimeoutMs: duration('idle time between body chunks in ms, e.g. 30000').optional(),
    totalTimeoutMs: duration('deadline for the whole exchange in ms, e.g. 60000').optional(),
  })
  .strict()
  .describe('size and time limits, e.g. { maxResponseBytes: 1048576, totalTimeoutMs: 20000 }');

/** The limits with every default filled in. `limits` has passed `limitsSchema` (at its `create*`). */
export function resolveLimits(limits: EgressLimits = {}): ResolvedLimits {
  const given = Object.entries(limits).filter(([, v]) => v !== undefined);
  return Object.freeze({ ...DEFAULT_LIMITS, ...Object.fromEntries(given) });
}
