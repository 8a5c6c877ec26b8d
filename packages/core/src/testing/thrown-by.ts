import { TrustError } from '../error.js';

function describeValue(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function notTrustError(value: unknown): Error {
  return new Error(`expected a TrustError, got ${describeValue(value)}`, { cause: value });
}

/**
 * Calls `fn` and returns the `TrustError` it throws, so a test can look at its code, message and
 * problems. Throws (failing the test) when `fn` returns, returns a promise (use `rejectionOf`), or
 * throws anything that is not a `TrustError` (kept as the failure's `cause`).
 *
 * @example
 * const e = thrownBy(() => createEgressGuard({ mdoe: 'strict' } as never));
 * expect(e).toRefuseOptions('EGRESS_OPTIONS_INVALID', [{ code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'mdoe' }]);
 */
export function thrownBy(fn: () => unknown): TrustError {
  let returned: unknown;
  try {
    returned = fn();
  } catch (e) {
    if (e instanceof TrustError) return e;
    throw notTrustError(e);
  }
  if (typeof (returned as { then?: unknown } | null)?.then === 'function') {
    throw new Error('expected the function to throw a TrustError, but it returned a promise; use rejectionOf');
  }
  throw new Error(`expected the function to throw a TrustError, but it returned ${describeValue(returned)}`);
}

/**
 * Awaits `fn()` and returns the `TrustError` it rejects with (or throws). Throws (failing the
 * test) when it resolves or rejects with anything else. To release what an accepted call started,
 * release it inside `fn`: the test still fails, and nothing is left listening.
 *
 * @example
 * const e = await rejectionOf(async () => (await createEgressProxy(options)).close());
 * expect(e).toHaveTrustCode('EGRESS_OPTIONS_INVALID');
 */
export async function rejectionOf(fn: () => unknown): Promise<TrustError> {
  let resolved: unknown;
  try {
    resolved = await fn();
  } catch (e) {
    if (e instanceof TrustError) return e;
    throw notTrustError(e);
  }
  throw new Error(`expected the call to reject with a TrustError, but it resolved to ${describeValue(resolved)}`);
}
