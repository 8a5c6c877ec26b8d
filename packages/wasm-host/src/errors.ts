import { TrustError, type Problem, type WasmErrorCode } from '@trust/core';

/**
 * Every stable error code `@trust/wasm-host` throws. The list lives in `@trust/core` with every
 * other area's, so `TrustError` accepts only known codes; it is re-exported here unchanged.
 */
export { WASM_ERROR_CODES } from '@trust/core';
export type { WasmErrorCode } from '@trust/core';

/** Builds a `TrustError` with a `WASM_*` code. */
export function wasmError(
  code: WasmErrorCode,
  message: string,
  options: { hint?: string; cause?: unknown; problems?: readonly Problem[] } = {},
): TrustError {
  return new TrustError(code, message, options);
}
