import type { TrustErrorCode } from '@trust/core';
import { TrustError } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { CodeRunner, LambdaRef } from './code-runner.js';
import type { CodeResult } from './code-sandbox.js';
import { parseLambdaRef } from './code-runner.js';

/** Outcome of a middleware chain: the (possibly rewritten) value, or a rejection. */
export type MiddlewareOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: TrustErrorCode; readonly reason: string };

/** What happened to one lambda of a chain, for the caller's audit. */
export interface MiddlewareStep {
  readonly lambda: string;
  /** `pass` (value unchanged), `rewrite`, `reject` (its own or a failure), `skip` (unauthorized file). */
  readonly outcome: 'pass' | 'rewrite' | 'reject' | 'skip';
  readonly code?: TrustErrorCode;
  readonly reason?: string;
}

/**
 * Runs a security middleware chain (inbox, outbox, fetch). Errors FAIL CLOSED: a lambda that
 * throws, times out, returns something unexpected, or names a missing file rejects the input
 * instead of letting it through. Each lambda receives `{ kind, value, context }` and returns
 * `{ value }` to continue (optionally rewritten) or `{ reject: "reason" }` to stop. `accept`
 * validates a rewritten value.
 *
 * With `require_middleware_authorization` (the default), a lambda in a file the owner has not
 * authorized never runs: `unauthorized: 'reject'` (the default, used by `fetch`) rejects the
 * input, `'skip'` (the seed's rule for message middleware) skips that lambda and goes on. Every
 * lambda's outcome is reported to `onStep`, skips included, so the caller can audit each decision.
 */
export async function runMiddlewareChain<T>(input: MiddlewareChainInput<T>): Promise<MiddlewareOutcome<T>> {
  return runChain(input);
}

/** The input of {@link runMiddlewareChain}. */
export interface MiddlewareChainInput<T> {
  readonly adf: AdfFile;
  readonly runner: CodeRunner;
  readonly kind: 'inbox' | 'outbox' | 'fetch';
  readonly refs: ReadonlyArray<{ readonly lambda: string }>;
  readonly value: T;
  readonly accept: (candidate: unknown) => T | undefined;
  readonly signal?: AbortSignal;
  /** Read-only facts passed to each lambda beside the value (e.g. an inbound message's trust stamps). */
  readonly context?: unknown;
  readonly unauthorized?: 'reject' | 'skip';
  readonly onStep?: (step: MiddlewareStep) => void;
}

async function runChain<T>(input: MiddlewareChainInput<T>): Promise<MiddlewareOutcome<T>> {
  let value = input.value;
  const requireAuth = input.adf.config().security.require_middleware_authorization;
  const step = (s: MiddlewareStep) => {
    try {
      input.onStep?.(s);
    } catch {
      /* an observer never changes the outcome */
    }
  };
  const rejected = (lambda: string, code: TrustErrorCode, reason: string): MiddlewareOutcome<T> => {
    step({ lambda, outcome: 'reject', code, reason });
    return { ok: false, code, reason };
  };
  for (const { lambda } of input.refs) {
    let ref: LambdaRef;
    try {
      ref = parseLambdaRef(lambda);
    } catch (e) {
      return rejected(lambda, 'MIDDLEWARE_INVALID', `${lambda}: ${(e as Error).message}`);
    }
    const rec = input.adf.files.read(ref.file);
    if (!rec) return rejected(lambda, 'MIDDLEWARE_MISSING', `${input.kind} middleware ${lambda} does not exist`);
    if (requireAuth && !rec.authorized) {
      const reason = `${input.kind} middleware ${lambda} is not in an authorized file`;
      if (input.unauthorized !== 'skip') return rejected(lambda, 'MIDDLEWARE_UNAUTHORIZED', reason);
      step({ lambda, outcome: 'skip', code: 'MIDDLEWARE_UNAUTHORIZED', reason });
      continue;
    }
    let r: CodeResult;
    try {
      const args = { kind: input.kind, value, ...(input.context === undefined ? {} : { context: input.context }) };
      r = await input.runner.runSystemLambda(ref, args, input.signal);
    } catch (e) {
      const why = `${e instanceof TrustError ? e.code : 'error'} ${(e as Error).message}`;
      return rejected(lambda, 'MIDDLEWARE_FAILED', `${lambda}: ${why}`);
    }
    if (!r.ok) return rejected(lambda, 'MIDDLEWARE_FAILED', `${lambda}: ${r.code} ${r.message}`);
    const out = r.value as { reject?: unknown; value?: unknown } | null;
    if (out && typeof out === 'object' && typeof out.reject === 'string')
      return rejected(lambda, 'MIDDLEWARE_REJECTED', `${lambda}: ${out.reject.slice(0, 500)}`);
    if (!out || typeof out !== 'object' || !('value' in out))
      return rejected(lambda, 'MIDDLEWARE_FAILED', `${lambda} returned neither { value } nor { reject }`);
    const next = input.accept(out.value);
    if (next === undefined)
      return rejected(lambda, 'MIDDLEWARE_FAILED', `${lambda} returned an invalid ${input.kind} value`);
    step({ lambda, outcome: JSON.stringify(next) === JSON.stringify(value) ? 'pass' : 'rewrite' });
    value = next;
  }
  return { ok: true, value };
}
