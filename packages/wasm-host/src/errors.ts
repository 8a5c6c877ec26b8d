import { TrustError, type Problem } from '@trust/core';

/**
 * Every stable error code `@trust/wasm-host` throws. Callers and tests match on these, never on
 * messages. Each error also carries a `hint` that says how to fix it.
 */
export const WASM_ERROR_CODES = Object.freeze([
  'WASM_MANIFEST_INVALID',
  'WASM_CAPABILITY_UNKNOWN',
  'WASM_CAPABILITY_INVALID',
  'WASM_PACKAGE_UNSAFE_PATH',
  'WASM_PACKAGE_MALFORMED',
  'WASM_PACKAGE_TOO_LARGE',
  'WASM_PACKAGE_NOT_FOUND',
  'WASM_UNSIGNED',
  'WASM_SIGNATURE_INVALID',
  'WASM_KEY_UNTRUSTED',
  'WASM_KEY_INVALID',
  'WASM_COMPONENT_INVALID',
  'WASM_IMPORT_UNSATISFIED',
  'WASM_EGRESS_POLICY_MISSING',
  'WASM_ISOLATION_REQUIRED',
  'WASM_INTERFACE_MISMATCH',
  'WASM_INSTANTIATE_FAILED',
  'WASM_EXPORT_UNKNOWN',
  'WASM_TIMEOUT',
  'WASM_TRAP',
  'WASM_EXIT',
  'WASM_GUEST_ERROR',
  'WASM_PLUGIN_DEAD',
  'WASM_MEMORY_LIMIT',
  'WASM_WORKER_CRASHED',
  'WASM_FS_UNSUPPORTED',
  'WASM_FS_GRANT_INVALID',
  'WASM_OPTIONS_INVALID',
] as const);

/** One of `WASM_ERROR_CODES`. */
export type WasmErrorCode = (typeof WASM_ERROR_CODES)[number];

/** Builds a `TrustError` with a `WASM_*` code. */
export function wasmError(
  code: WasmErrorCode,
  message: string,
  options: { hint?: string; cause?: unknown; problems?: readonly Problem[] } = {},
): TrustError {
  return new TrustError(code, message, options);
}
