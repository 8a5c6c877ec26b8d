import { Agent } from 'undici';
import { z } from 'zod';
import { createGuardedConnector, type DialRecord } from './connector.js';
import { checkEgressOptions, fn, isGuard } from './egress-options.js';
import { createEgressGuard, type EgressGuard } from './guard.js';
import { guardOptionsSchema, type GuardOptions } from './guard-options.js';
import { limitsSchema, resolveLimits, type EgressLimits } from './limits.js';

export interface EgressDispatcherOptions {
  /** A compiled guard, or options to compile one. */
  readonly guard?: EgressGuard | GuardOptions;
  readonly limits?: EgressLimits;
  readonly onDial?: (record: DialRecord) => void;
}

/** The `guard` field of every `create*` here: guard options (checked), or a compiled guard (kept). */
export const guardField = guardOptionsSchema
  .optional()
  .describe('address guard: createEgressGuard(...) or its options, e.g. { mode: "strict" }');

const dispatcherOptionsSchema = z
  .object({
    guard: guardField,
    limits: limitsSchema.optional(),
    onDial: fn('called with every dialled address, e.g. (d) => console.log(d.host, d.ip)').optional(),
  })
  .strict();

/** Returns the guard itself, or compiles the options into one. */
export function toGuard(value: EgressGuard | GuardOptions | undefined): EgressGuard {
  return isGuard(value) ? value : createEgressGuard(value ?? {});
}

/**
 * An undici `Agent` whose every connection goes through the guarded connector (resolve, judge
 * every address, dial the vetted one). Use it as `dispatcher` for undici's `fetch`, `request` or
 * `WebSocket` when you need the raw undici API; `createEgressClient` adds policy, redirects,
 * limits and audit on top. The options are checked once (strict: an unknown key is
 * `EGRESS_OPTIONS_UNKNOWN_KEY` with "did you mean", thrown as `EGRESS_OPTIONS_INVALID`).
 *
 * @example
 * import { request } from 'undici';
 * const dispatcher = createEgressDispatcher({ guard: { mode: 'strict' } });
 * await request('http://169.254.169.254/', { dispatcher }); // rejects: EGRESS_METADATA
 */
export function createEgressDispatcher(options: EgressDispatcherOptions = {}): Agent {
  checkEgressOptions('createEgressDispatcher', dispatcherOptionsSchema, options);
  const limits = resolveLimits(options.limits);
  return new Agent({
    connect: createGuardedConnector(toGuard(options.guard), {
      connectTimeoutMs: limits.connectTimeoutMs,
      onDial: options.onDial,
    }),
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
  });
}
