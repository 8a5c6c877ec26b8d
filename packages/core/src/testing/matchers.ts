import type {} from 'vitest';
import type { Decision } from '../decision.js';
import { TrustError } from '../error.js';

interface MatcherResult {
  pass: boolean;
  message: () => string;
  actual?: unknown;
  expected?: unknown;
}

interface MatcherContext {
  readonly isNot: boolean;
}

function describeDecision(value: unknown): string {
  if (typeof value !== 'object' || value === null || !('allow' in value)) return `a non-decision ${JSON.stringify(value)}`;
  const d = value as Decision;
  return d.allow ? `allow${d.rule ? ` (rule ${d.rule})` : ''}` : `deny ${d.code}: ${d.reason}`;
}

/**
 * Vitest matchers for trust values. Register with `expect.extend(trustMatchers)` (for example
 * in a setup file) and import `@trust/core/testing` once for the types.
 *
 * - `expect(fn).toThrowTrustError(code)`: `fn` throws a `TrustError` with `code`. Also works on a
 *   thrown or rejected value: `await expect(promise).rejects.toThrowTrustError(code)`.
 * - `expect(decision).toBeDenied(code?)`: a deny, with `code` when given.
 * - `expect(decision).toBeAllowed()`: an allow.
 *
 * @example
 * expect.extend(trustMatchers);
 * expect(() => parseCapabilities(['env'])).toThrowTrustError('CAPABILITY_INVALID');
 * expect(policy.authorizeHttp(req, ctx)).toBeDenied('EGRESS_HOST_NOT_ALLOWED');
 */
export const trustMatchers = {
  toThrowTrustError(this: MatcherContext, received: unknown, code: string): MatcherResult {
    let thrown: unknown = received;
    let threw = true;
    if (typeof received === 'function') {
      threw = false;
      try {
        (received as () => unknown)();
      } catch (e) {
        thrown = e;
        threw = true;
      }
    }
    if (!threw) return { pass: false, message: () => `expected the function to throw TrustError ${code}, but it returned` };
    const isTrust = thrown instanceof TrustError;
    const actual = isTrust ? (thrown as TrustError).code : thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
    return {
      pass: isTrust && (thrown as TrustError).code === code,
      message: () =>
        this.isNot ? `expected not to throw TrustError ${code}` : `expected TrustError ${code}, got ${isTrust ? `TrustError ${actual}` : actual}`,
      actual,
      expected: code,
    };
  },

  toBeDenied(this: MatcherContext, received: unknown, code?: string): MatcherResult {
    const d = received as Decision;
    const isDeny = typeof d === 'object' && d !== null && d.allow === false;
    const pass = isDeny && (code === undefined || d.code === code);
    return {
      pass,
      message: () =>
        this.isNot
          ? `expected not to be denied${code ? ` with ${code}` : ''}, got ${describeDecision(received)}`
          : `expected deny${code ? ` ${code}` : ''}, got ${describeDecision(received)}`,
      actual: isDeny ? d.code : 'allow',
      expected: code,
    };
  },

  toBeAllowed(this: MatcherContext, received: unknown): MatcherResult {
    const d = received as Decision;
    const pass = typeof d === 'object' && d !== null && d.allow === true;
    return {
      pass,
      message: () => (this.isNot ? `expected not to be allowed, got ${describeDecision(received)}` : `expected allow, got ${describeDecision(received)}`),
    };
  },
};

/** The matchers as they appear on `expect(...)`. */
export interface TrustMatchers<R = unknown> {
  toThrowTrustError(code: string): R;
  toBeDenied(code?: string): R;
  toBeAllowed(): R;
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends TrustMatchers<T> {}
}
