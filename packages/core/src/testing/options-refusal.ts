import { type Problem, TrustError } from '../error.js';
import type { TrustErrorCode } from '../trust-error-code.js';

/** A text expectation: a string the text must contain, or a pattern it must match. */
export type TextExpectation = string | RegExp;

/** One problem an options refusal must list. */
export interface ExpectedProblem {
  /** The problem's code, e.g. `EGRESS_OPTIONS_UNKNOWN_KEY` or `EGRESS_OPTIONS_INVALID`. */
  readonly code: TrustErrorCode;
  /** The key path the problem names, e.g. `limits.maxBytes`. */
  readonly path: string;
  /** What the hint must contain or match (the did-you-mean or the field's valid example). */
  readonly hint?: TextExpectation;
  /** What the problem's message must contain or match. */
  readonly message?: TextExpectation;
}

/** What `toRefuseOptions` decided: pass, and a message for either outcome. */
export interface OptionsRefusalResult {
  readonly pass: boolean;
  readonly message: () => string;
}

function fitsText(text: string | undefined, want: TextExpectation | undefined): boolean {
  if (want === undefined) return true;
  if (text === undefined) return false;
  return typeof want === 'string' ? text.includes(want) : want.test(text);
}

function fits(want: ExpectedProblem, got: Problem): boolean {
  return (
    want.code === got.code &&
    want.path === got.path &&
    fitsText(got.hint, want.hint) &&
    fitsText(got.message, want.message)
  );
}

/** True when each expected problem fits a different actual problem (a perfect matching, any order). */
function assign(wanted: readonly ExpectedProblem[], got: readonly Problem[], used: boolean[], i: number): boolean {
  const want = wanted[i];
  if (want === undefined) return true;
  for (let j = 0; j < got.length; j++) {
    const problem = got[j];
    if (used[j] || problem === undefined || !fits(want, problem)) continue;
    used[j] = true;
    if (assign(wanted, got, used, i + 1)) return true;
    used[j] = false;
  }
  return false;
}

function showText(want: TextExpectation): string {
  return typeof want === 'string' ? JSON.stringify(want) : String(want);
}

function showWanted(p: ExpectedProblem): string {
  const hint = p.hint === undefined ? '' : `, hint ~ ${showText(p.hint)}`;
  const message = p.message === undefined ? '' : `, message ~ ${showText(p.message)}`;
  return `  ${p.code} at ${p.path}${message}${hint}`;
}

function showGot(p: Problem): string {
  return `  ${p.code} at ${p.path ?? '(no path)'}: ${JSON.stringify(p.message)}, hint ${JSON.stringify(p.hint)}`;
}

/** The TrustError `value` is or throws, or why there is none. */
function refusalOf(value: unknown): { error?: TrustError; why?: string } {
  if (typeof value !== 'function') {
    return value instanceof TrustError ? { error: value } : { why: `got ${String(value)}, not a TrustError` };
  }
  let returned: unknown;
  try {
    returned = (value as () => unknown)();
  } catch (e) {
    return e instanceof TrustError ? { error: e } : { why: `the function threw ${String(e)}, not a TrustError` };
  }
  const promise = typeof (returned as { then?: unknown } | null)?.then === 'function';
  return {
    why: promise
      ? 'the function returned a promise: use `await expect(promise).rejects.toRefuseOptions(…)`'
      : 'the function returned instead of throwing',
  };
}

/**
 * The check behind the `toRefuseOptions` matcher: `value` (a TrustError, or a function that throws
 * one) has `code`, a message that fits `message` when given, and exactly the `problems` expected,
 * in any order, each with its code and path and a hint and message that fit when given.
 */
export function checkOptionsRefusal(
  value: unknown,
  code: TrustErrorCode,
  problems: readonly ExpectedProblem[],
  message?: TextExpectation,
): OptionsRefusalResult {
  const { error, why } = refusalOf(value);
  const wanted = [`TrustError ${code}`, ...(message === undefined ? [] : [`message ~ ${showText(message)}`])];
  const expected = (not: boolean) =>
    `expected ${not ? 'not ' : ''}${wanted.join(', ')} with the problems\n${problems.map(showWanted).join('\n')}`;
  if (error === undefined) return { pass: false, message: () => `${expected(false)}\nbut ${why}` };
  const pass =
    error.code === code &&
    fitsText(error.message, message) &&
    error.problems.length === problems.length &&
    assign(problems, error.problems, [], 0);
  const got = `got TrustError ${error.code}: ${JSON.stringify(error.message)} with the problems\n${error.problems
    .map(showGot)
    .join('\n')}`;
  return { pass, message: () => `${expected(pass)}\n${got}` };
}
