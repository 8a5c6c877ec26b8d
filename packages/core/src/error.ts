import type { Deny } from './decision.js';
import type { TrustErrorCode } from './trust-error-code.js';

/** One problem found while validating input, with a code and a concrete fix. */
export interface Problem {
  readonly code: TrustErrorCode;
  readonly message: string;
  /** How to fix it, ideally with a valid example. */
  readonly hint?: string;
  /** Where the problem is: an index, a key path or a field name. */
  readonly path?: string;
  readonly severity?: 'error' | 'warning';
}

export interface TrustErrorOptions {
  readonly cause?: unknown;
  readonly hint?: string;
  readonly decision?: Deny;
  readonly problems?: readonly Problem[];
}

/**
 * The base of every error trust throws. Callers and tests match on `code`, never on the message.
 * `code` is one of the known codes (`TrustErrorCode`), so a misspelt code fails to type-check;
 * `C` narrows it where a function throws codes of one area only.
 *
 * @example
 * try { parseCapabilities(['env']); } catch (e) { if (e instanceof TrustError) console.log(e.code, e.hint); }
 */
export class TrustError<C extends TrustErrorCode = TrustErrorCode> extends Error {
  readonly code: C;
  readonly hint: string | undefined;
  readonly decision: Deny | undefined;
  readonly problems: readonly Problem[];

  constructor(code: C, message: string, options: TrustErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TrustError';
    this.code = code;
    this.hint = options.hint;
    this.decision = options.decision;
    this.problems = Object.freeze([...(options.problems ?? [])]);
  }
}

/**
 * Turns a deny decision into the error an enforcement point throws.
 *
 * @example
 * const d = policy.authorizeHttp(req, ctx); if (!d.allow) throw deniedError(d);
 */
export function deniedError<C extends TrustErrorCode>(decision: Deny<C>): TrustError<C> {
  const message = decision.hint ? `${decision.reason}; ${decision.hint}` : decision.reason;
  return new TrustError(decision.code, message, { decision, hint: decision.hint });
}

/**
 * True when `value` is a TrustError, optionally with the given code.
 *
 * @example
 * catch (e) { if (isTrustError(e, 'POLICY_JSON')) console.log(e.hint); }
 */
export function isTrustError<C extends TrustErrorCode = TrustErrorCode>(
  value: unknown,
  code?: C,
): value is TrustError<C> {
  return value instanceof TrustError && (code === undefined || value.code === code);
}

/**
 * Thrown by features that are declared but not built yet.
 *
 * @example
 * throw notImplemented('seatbelt on Linux');
 */
export function notImplemented(what: string): TrustError {
  return new TrustError('NOT_IMPLEMENTED', `${what} is not implemented yet`, {
    hint: 'this feature is planned; see the package README for what works today',
  });
}
