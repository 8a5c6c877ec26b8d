/**
 * Stable error codes of `@trust/wasm-host`: manifests, packages and signatures, loading, instantiation and guest calls.
 * The list is data: `@trust/core` collects every package's codes so that `TrustError` accepts only
 * known ones. A package that adds a code adds it here, one per line.
 *
 * @example
 * WASM_ERROR_CODES.includes('WASM_TRAP'); // true
 */
export const WASM_ERROR_CODES = Object.freeze([
  'WASM_MANIFEST_INVALID',
  'WASM_CAPABILITY_UNKNOWN',
  'WASM_CAPABILITY_INVALID',
  'WASM_PACKAGE_UNSAFE_PATH',
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
  'WASM_FS_GRANT_MISSING',
  'WASM_FILE_CHANGED',
  'WASM_FILE_MISSING',
  'WASM_FILE_UNSIGNED',
  'WASM_LOAD_FAILED',
  'WASM_MANIFEST_FIELD',
  'WASM_MANIFEST_FORMAT',
  'WASM_MANIFEST_UNKNOWN_KEY',
  'WASM_PACKAGE_MALFORMED',
  'WASM_OPTIONS_UNKNOWN_KEY',
  'WASM_OPTIONS_INVALID',
] as const);
/** One of `WASM_ERROR_CODES`. */
export type WasmErrorCode = (typeof WASM_ERROR_CODES)[number];
