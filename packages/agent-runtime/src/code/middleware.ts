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

/**
 * Runs a security middleware chain (inbox, fetch). It FAILS CLOSED: a lambda that throws, times
 * out, returns something unexpected, or (with `require_middleware_authorization`) lives in an
 * unauthorized file, rejects the input instead of letting it through. Each lambda receives
 * `{ kind, value }` and returns `{ value }` to continue (optionally rewritten) or
 * `{ reject: "reason" }` to stop. `accept` validates a rewritten value.
 */
export async function runMiddlewareChain<T>(input: {
  readonly adf: AdfFile;
  readonly runner: CodeRunner;
  readonly kind: 'inbox' | 'outbox' | 'fetch';
  readonly refs: ReadonlyArray<{ readonly lambda: string }>;
  readonly value: T;
  readonly accept: (candidate: unknown) => T | undefined;
  readonly signal?: AbortSignal;
}): Promise<MiddlewareOutcome<T>> {
  let value = input.value;
  const requireAuth = input.adf.config().security.require_middleware_authorization;
  for (const { lambda } of input.refs) {
    let ref: LambdaRef;
    try {
      ref = parseLambdaRef(lambda);
    } catch (e) {
      return { ok: false, code: 'MIDDLEWARE_INVALID', reason: `${lambda}: ${(e as Error).message}` };
    }
    const rec = input.adf.files.read(ref.file);
    if (!rec)
      return { ok: false, code: 'MIDDLEWARE_MISSING', reason: `${input.kind} middleware ${lambda} does not exist` };
    if (requireAuth && !rec.authorized)
      return {
        ok: false,
        code: 'MIDDLEWARE_UNAUTHORIZED',
        reason: `${input.kind} middleware ${lambda} is not in an authorized file`,
      };
    let r: CodeResult;
    try {
      r = await input.runner.runSystemLambda(ref, { kind: input.kind, value }, input.signal);
    } catch (e) {
      return {
        ok: false,
        code: 'MIDDLEWARE_FAILED',
        reason: `${lambda}: ${e instanceof TrustError ? e.code : 'error'} ${(e as Error).message}`,
      };
    }
    if (!r.ok) return { ok: false, code: 'MIDDLEWARE_FAILED', reason: `${lambda}: ${r.code} ${r.message}` };
    const out = r.value as { reject?: unknown; value?: unknown } | null;
    if (out && typeof out === 'object' && typeof out.reject === 'string')
      return { ok: false, code: 'MIDDLEWARE_REJECTED', reason: `${lambda}: ${out.reject}` };
    if (!out || typeof out !== 'object' || !('value' in out))
      return { ok: false, code: 'MIDDLEWARE_FAILED', reason: `${lambda} returned neither { value } nor { reject }` };
    const next = input.accept(out.value);
    if (next === undefined)
      return { ok: false, code: 'MIDDLEWARE_FAILED', reason: `${lambda} returned an invalid ${input.kind} value` };
    value = next;
  }
  return { ok: true, value };
}
