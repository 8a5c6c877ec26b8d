import { TrustError, deniedError, deny, type Deny, type EgressErrorCode } from '@trust/core';
import { scrubSecrets } from './redact.js';

/** Builds the error for a deny decided by the egress engine itself. */
export function egressDenied(code: EgressErrorCode, reason: string, rule: string, hint: string): TrustError {
  return deniedError(deny(code, reason, { rule, hint }));
}

/** Walks the `cause` chain for a TrustError (the connector's denials travel inside undici errors). */
export function findTrustError(err: unknown): TrustError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 6 && e != null; i++) {
    if (e instanceof TrustError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function codesOf(err: unknown): { codes: string[]; names: string[] } {
  const codes: string[] = [];
  const names: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 6 && e != null; i++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string') codes.push(c);
    const n = (e as { name?: unknown }).name;
    if (typeof n === 'string') names.push(n);
    e = (e as { cause?: unknown }).cause;
  }
  return { codes, names };
}

export interface ErrorContext {
  /** Where, for the message: `host:port` or a redacted URL. Never carries secrets. */
  readonly where: string;
  readonly userSignal?: AbortSignal | null;
  /** True once the client's total deadline fired. */
  readonly timedOut?: () => boolean;
  readonly secrets?: Iterable<string>;
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'EADDRNOTAVAIL',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/**
 * Turns whatever the transport threw into a TrustError with a stable `EGRESS_*` code. Secret
 * values are scrubbed from the wrapped cause's message.
 */
export function toEgressError(err: unknown, ctx: ErrorContext): TrustError {
  const found = findTrustError(err);
  if (found !== undefined) return found;
  const secrets = [...(ctx.secrets ?? [])];
  const message = scrubSecrets(String((err as { message?: unknown } | null)?.message ?? err), secrets);
  const cause = Object.assign(new Error(message), { code: (err as { code?: unknown } | null)?.code });
  const make = (code: EgressErrorCode, reason: string, hint: string): TrustError =>
    new TrustError(code, `${reason}; ${hint}`, {
      cause,
      hint,
      decision: deny(code, reason, { rule: 'limits', hint }) as Deny,
    });
  if (ctx.userSignal?.aborted)
    return make(
      'EGRESS_ABORTED',
      `egress to ${ctx.where} was aborted by the caller`,
      'the AbortSignal passed in fired',
    );
  if (ctx.timedOut?.() === true)
    return make(
      'EGRESS_TIMEOUT',
      `egress to ${ctx.where} exceeded the total time limit`,
      'raise limits.totalTimeoutMs if the peer is legitimately slow',
    );
  const { codes, names } = codesOf(err);
  const has = (c: string) => codes.includes(c);
  if (has('UND_ERR_HEADERS_TIMEOUT'))
    return make(
      'EGRESS_TIMEOUT',
      `egress to ${ctx.where}: response headers did not arrive in time`,
      'raise limits.headersTimeoutMs if the peer is legitimately slow',
    );
  if (has('UND_ERR_BODY_TIMEOUT'))
    return make(
      'EGRESS_TIMEOUT',
      `egress to ${ctx.where}: the response body stalled`,
      'raise limits.bodyTimeoutMs if the peer is legitimately slow',
    );
  if (has('UND_ERR_CONNECT_TIMEOUT'))
    return make(
      'EGRESS_TIMEOUT',
      `egress to ${ctx.where}: connect timed out`,
      'raise limits.connectTimeoutMs, or check the peer',
    );
  if (has('UND_ERR_HEADERS_OVERFLOW'))
    return make(
      'EGRESS_HEADERS_TOO_LARGE',
      `egress to ${ctx.where}: response headers are too large`,
      'raise limits.maxHeaderBytes if this peer is trusted',
    );
  if (has('UND_ERR_RES_EXCEEDED_MAX_SIZE'))
    return make(
      'EGRESS_RESPONSE_TOO_LARGE',
      `egress to ${ctx.where}: response is too large`,
      'raise limits.maxResponseBytes',
    );
  if (names.includes('TimeoutError'))
    return make('EGRESS_TIMEOUT', `egress to ${ctx.where} timed out`, 'raise the relevant limit');
  if (names.includes('AbortError'))
    return make('EGRESS_ABORTED', `egress to ${ctx.where} was aborted`, 'the request was cancelled');
  if (codes.some((c) => CONNECT_CODES.has(c)))
    return make(
      'EGRESS_CONNECT_FAILED',
      `egress to ${ctx.where} failed: ${codes.find((c) => CONNECT_CODES.has(c))}`,
      'check that the peer is up and reachable',
    );
  return make(
    'EGRESS_PROTOCOL',
    `egress to ${ctx.where} failed: ${message}`,
    'the peer sent something the client could not use',
  );
}
