import { TrustError } from '@trust/core';

/**
 * Stable error codes of the control API. Clients (the studio, the CLI) match on these, never on
 * the message. Each one maps to exactly one HTTP status.
 *
 * @example
 * CONTROL_ERROR_STATUS.CONTROL_TOKEN_MISSING; // 401
 */
export const CONTROL_ERROR_STATUS = Object.freeze({
  CONTROL_HOST_NOT_ALLOWED: 421,
  CONTROL_HOST_DUPLICATE: 400,
  CONTROL_BUSY: 503,
  CONTROL_CROSS_ORIGIN: 403,
  CONTROL_TOKEN_IN_QUERY: 400,
  CONTROL_TOKEN_MISSING: 401,
  CONTROL_TOKEN_INVALID: 401,
  CONTROL_NOT_FOUND: 404,
  CONTROL_METHOD_NOT_ALLOWED: 405,
  CONTROL_UNSUPPORTED_MEDIA_TYPE: 415,
  CONTROL_BODY_TOO_LARGE: 413,
  CONTROL_BAD_REQUEST: 400,
  INPUT_TOO_DEEP: 400,
  CONTROL_PATH_INVALID: 400,
  CONTROL_AGENT_NOT_FOUND: 404,
  CONTROL_TASK_NOT_FOUND: 404,
  CONTROL_TRIGGER_SOURCE_FORBIDDEN: 403,
  CONTROL_TRIGGER_SOURCE_INVALID: 400,
  CONTROL_CONFLICT: 409,
  CONTROL_INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
} as const);

export type ControlErrorCode = keyof typeof CONTROL_ERROR_STATUS;

/** The JSON body of every error response: `{ error: { code, message, hint } }`. */
export interface ControlErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly hint?: string };
}

/**
 * Builds a TrustError with a control code. Route handlers and registries throw these; the server
 * turns them into the status in {@link CONTROL_ERROR_STATUS}.
 *
 * @example
 * throw controlError('CONTROL_AGENT_NOT_FOUND', 'no agent "x"', 'list agents with GET /api/v1/agents');
 */
export function controlError(code: ControlErrorCode, message: string, hint?: string): TrustError {
  return new TrustError(code, message, hint === undefined ? {} : { hint });
}

/** Maps any thrown value to a status and a JSON body that never leaks a stack trace. */
export function toErrorResponse(err: unknown): { status: number; body: ControlErrorBody } {
  if (err instanceof TrustError) {
    const known = (CONTROL_ERROR_STATUS as Record<string, number>)[err.code];
    // A TrustError from the runtime (e.g. a tool-gate denial) is a refused request, not a crash.
    const status = known ?? 400;
    const error =
      err.hint === undefined
        ? { code: err.code, message: err.message }
        : { code: err.code, message: err.message, hint: err.hint };
    return { status, body: { error } };
  }
  return {
    status: 500,
    body: {
      error: { code: 'CONTROL_INTERNAL', message: 'internal error in the control server', hint: 'see the server log' },
    },
  };
}
