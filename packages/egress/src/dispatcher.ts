import { Agent } from 'undici';
import { createGuardedConnector, type DialRecord } from './connector.js';
import { createEgressGuard, type EgressGuard } from './guard.js';
import type { GuardOptions } from './guard-options.js';
import { resolveLimits, type EgressLimits } from './limits.js';

export interface EgressDispatcherOptions {
  /** A compiled guard, or options to compile one. */
  readonly guard?: EgressGuard | GuardOptions;
  readonly limits?: EgressLimits;
  readonly onDial?: (record: DialRecord) => void;
}

function isGuard(value: EgressGuard | GuardOptions | undefined): value is EgressGuard {
  return typeof (value as EgressGuard | undefined)?.resolveHost === 'function';
}

/** Returns the guard itself, or compiles the options into one. */
export function toGuard(value: EgressGuard | GuardOptions | undefined): EgressGuard {
  return isGuard(value) ? value : createEgressGuard(value ?? {});
}

/**
 * An undici `Agent` whose every connection goes through the guarded connector (resolve, judge
 * every address, dial the vetted one). Use it as `dispatcher` for undici's `fetch`, `request` or
 * `WebSocket` when you need the raw undici API; `createEgressClient` adds policy, redirects,
 * limits and audit on top.
 *
 * @example
 * import { request } from 'undici';
 * const dispatcher = createEgressDispatcher({ guard: { mode: 'strict' } });
 * await request('http://169.254.169.254/', { dispatcher }); // rejects: EGRESS_METADATA
 */
export function createEgressDispatcher(options: EgressDispatcherOptions = {}): Agent {
  const guard = toGuard(options.guard);
  const limits = resolveLimits(options.limits);
  return new Agent({
    connect: createGuardedConnector(guard, { connectTimeoutMs: limits.connectTimeoutMs, onDial: options.onDial }),
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
  });
}
