/**
 * Stable error and decision codes of `@trust/egress`. Callers and tests match on these, never on
 * messages. Every deny carries one of them plus a hint that says how to permit the action. The
 * list lives in `@trust/core` with every other area's, so `TrustError` accepts only known codes.
 */
export { EGRESS_ERROR_CODES as EGRESS_CODES } from '@trust/core';
/** One of `EGRESS_CODES`. A JavaScript policy may also deny with its own code; that code is kept. */
export type { EgressErrorCode as EgressCode } from '@trust/core';
