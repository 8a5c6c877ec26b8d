import type {} from 'vitest';
import type { Decision } from '../decision.js';
import { TrustError } from '../error.js';
import type { TrustErrorCode } from '../trust-error-code.js';
import { checkOptionsRefusal, type ExpectedProblem, type TextExpectation } from './options-refusal.js';

interface MatcherResult {
  pass: boolean;
  message: () => string;
  actual?: unknown;
  expected?: unknown;
}

interface MatcherContext {
  readonly isNot: boolean;
}

function describeCode(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `${JSON.stringify(value)}, not an object with a code`;
  const code = (value as { code?: unknown }).code;
  return code === undefined ? 'an object without a code' : `code ${JSON.stringify(code)}`;
}

function describeDecision(value: unknown): string {
  if (typeof value !== 'object' || value === null || !('allow' in value))
    return `a non-decision ${JSON.stringify(value)}`;
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
 * - `expect(value).toHaveTrustCode(code)`: `value` (an error, a problem, a result, an audit event)
 *   has `code`; `await expect(promise).rejects.toHaveTrustCode(code)` for any rejected object.
 * - `expect(value.code).toBeTrustCode(code)`, or inside another matcher's object as the asymmetric
 *   `expect.toBeTrustCode(code)`: the value is `code`.
 * - `expect(fn).toRefuseOptions(code, problems, message?)`: `fn` (or a thrown or rejected value) is
 *   a `TrustError` with `code` listing exactly `problems`, in any order, each by code and path, with
 *   a hint and message that contain the string or match the pattern given (see `ExpectedProblem`).
 *
 * Every `code` parameter is a `TrustErrorCode`, so a misspelt code fails to type-check.
 *
 * @example
 * expect.extend(trustMatchers);
 * expect(() => parseCapabilities(['env'])).toThrowTrustError('CAPABILITY_INVALID');
 * expect(policy.authorizeHttp(req, ctx)).toBeDenied('EGRESS_HOST_NOT_ALLOWED');
 * expect(() => createEgressGuard({ mdoe: 'strict' } as never)).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
 *   { code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'mdoe', hint: 'did you mean "mode"?' },
 * ]);
 */
export const trustMatchers = {
  toThrowTrustError(this: MatcherContext, received: unknown, code: TrustErrorCode): MatcherResult {
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
    if (!threw)
      return { pass: false, message: () => `expected the function to throw TrustError ${code}, but it returned` };
    const isTrust = thrown instanceof TrustError;
    const actual = isTrust
      ? (thrown as TrustError).code
      : thrown instanceof Error
        ? `${thrown.name}: ${thrown.message}`
        : String(thrown);
    return {
      pass: isTrust && (thrown as TrustError).code === code,
      message: () =>
        this.isNot
          ? `expected not to throw TrustError ${code}`
          : `expected TrustError ${code}, got ${isTrust ? `TrustError ${actual}` : actual}`,
      actual,
      expected: code,
    };
  },

  toBeDenied(this: MatcherContext, received: unknown, code?: TrustErrorCode): MatcherResult {
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

  toHaveTrustCode(this: MatcherContext, received: unknown, code: TrustErrorCode): MatcherResult {
    const actual =
      typeof received === 'object' && received !== null ? (received as { code?: unknown }).code : undefined;
    return {
      pass: actual === code,
      message: () =>
        this.isNot ? `expected a code other than ${code}` : `expected code ${code}, got ${describeCode(received)}`,
      actual,
      expected: code,
    };
  },

  toBeTrustCode(this: MatcherContext, received: unknown, code: TrustErrorCode): MatcherResult {
    return {
      pass: received === code,
      message: () =>
        this.isNot ? `expected a code other than ${code}` : `expected code ${code}, got ${JSON.stringify(received)}`,
      actual: received,
      expected: code,
    };
  },

  toRefuseOptions(
    this: MatcherContext,
    received: unknown,
    code: TrustErrorCode,
    problems: readonly ExpectedProblem[],
    message?: TextExpectation,
  ): MatcherResult {
    return checkOptionsRefusal(received, code, problems, message);
  },

  toBeAllowed(this: MatcherContext, received: unknown): MatcherResult {
    const d = received as Decision;
    const pass = typeof d === 'object' && d !== null && d.allow === true;
    return {
      pass,
      message: () =>
        this.isNot
          ? `expected not to be allowed, got ${describeDecision(received)}`
          : `expected allow, got ${describeDecision(received)}`,
    };
  },
};

/** The matchers as they appear on `expect(...)`. */
export interface TrustMatchers<R = unknown> {
  toThrowTrustError(code: TrustErrorCode): R;
  toBeDenied(code?: TrustErrorCode): R;
  toBeAllowed(): R;
  toHaveTrustCode(code: TrustErrorCode): R;
  toBeTrustCode(code: TrustErrorCode): R;
  toRefuseOptions(code: TrustErrorCode, problems: readonly ExpectedProblem[], message?: TextExpectation): R;
}

/** The matchers usable inside another matcher's expected value (`expect.toBeTrustCode(code)`). */
export interface TrustAsymmetricMatchers {
  toBeTrustCode(code: TrustErrorCode): unknown;
}

declare module 'vitest' {
  // The default of `T` is vitest's own; a merged declaration may leave it out.
  interface Matchers<T> extends TrustMatchers<T> {}
  interface AsymmetricMatchersContaining extends TrustAsymmetricMatchers {}
}
