/**
 * Stable error codes of `@trust/os-sandbox`: policy and option checks, the launcher, probing and runs.
 * The list is data: `@trust/core` collects every package's codes so that `TrustError` accepts only
 * known ones. A package that adds a code adds it here, one per line.
 *
 * @example
 * SANDBOX_ERROR_CODES.includes('SANDBOX_UNAVAILABLE'); // true
 */
export const SANDBOX_ERROR_CODES = Object.freeze([
  'SANDBOX_ARGV_INVALID',
  'SANDBOX_CAPABILITY_MISSING',
  'SANDBOX_CLOSED',
  'SANDBOX_CWD_INVALID',
  'SANDBOX_CWD_NOT_GRANTED',
  'SANDBOX_DEGRADED_REFUSED',
  'SANDBOX_ENV_INVALID',
  'SANDBOX_ENV_RESERVED',
  'SANDBOX_ENV_SECRET',
  'SANDBOX_GRANT_SYMLINK',
  'SANDBOX_LAUNCHER_CACHE_UNSAFE',
  'SANDBOX_LAUNCHER_TAMPERED',
  'SANDBOX_LIMIT_INVALID',
  'SANDBOX_POLICY_FIELD',
  'SANDBOX_POLICY_INVALID',
  'SANDBOX_PROTECTED_SYMLINK',
  'SANDBOX_SPAWN_FAILED',
  'SANDBOX_TIMEOUT',
  'SANDBOX_UNAVAILABLE',
  'SANDBOX_UNIX_SOCKET_INVALID',
  'SANDBOX_WIRE_INVALID',
  'SANDBOX_POLICY_UNKNOWN_KEY',
  'SANDBOX_GRANT_MISSING',
  'SANDBOX_ROOT_NOT_OVERLAYABLE',
  'SANDBOX_NESTED_UNSUPPORTED',
  'SANDBOX_UNIX_SOCKETS_UNENFORCEABLE',
] as const);
/** One of `SANDBOX_ERROR_CODES`. */
export type SandboxErrorCode = (typeof SANDBOX_ERROR_CODES)[number];
