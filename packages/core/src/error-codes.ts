/**
 * The stable codes of every error and decision core produces, per area, and of egress. Callers and
 * tests match on these, never on messages. A `Problem` inside a `TrustError` carries one of them.
 * The other packages' areas sit in `error-codes-*.ts`; `trust-error-code.ts` unites them all.
 */

/**
 * Codes of `parseCapabilities` (the error and its problems) and `CapabilitySet` decisions.
 *
 * @example
 * CAPABILITY_ERROR_CODES.includes(error.code as CapabilityErrorCode);
 */
export const CAPABILITY_ERROR_CODES = Object.freeze([
  'CAPABILITY_INVALID',
  'CAPABILITY_UNKNOWN',
  'CAPABILITY_BARE_ENV',
  'CAPABILITY_BARE_FS',
  'CAPABILITY_EMPTY',
  'CAPABILITY_NUL',
  'CAPABILITY_FS_MODE',
  'CAPABILITY_FS_RELATIVE',
  'CAPABILITY_FS_PATH',
  'CAPABILITY_FS_DENY_UNCOVERED',
  'CAPABILITY_FS_MODE_CONFLICT',
  'CAPABILITY_ENV_NAME',
  'CAPABILITY_TIER_CONFLICT',
  'CAPABILITY_DUPLICATE',
  'CAPABILITY_ENV_NOT_GRANTED',
] as const);
export type CapabilityErrorCode = (typeof CAPABILITY_ERROR_CODES)[number];

/**
 * Codes of host rules, policy building blocks, policy files and their compilation.
 *
 * @example
 * POLICY_ERROR_CODES.includes(error.code as PolicyErrorCode);
 */
export const POLICY_ERROR_CODES = Object.freeze([
  'POLICY_INVALID',
  'POLICY_JSON',
  'POLICY_VERSION',
  'POLICY_TYPE',
  'POLICY_INVALID_VALUE',
  'POLICY_UNKNOWN_KEY',
  'POLICY_HOST_RULE_INVALID',
  'POLICY_CIDR_INVALID',
  'POLICY_METHOD_INVALID',
  'POLICY_HEADER_INVALID',
  'POLICY_SECRET_MISSING',
] as const);
export type PolicyErrorCode = (typeof POLICY_ERROR_CODES)[number];

/**
 * Codes of `verifyChain` verdicts and of the audit sinks and readers.
 *
 * @example
 * AUDIT_ERROR_CODES.includes(verdict.code);
 */
export const AUDIT_ERROR_CODES = Object.freeze([
  'AUDIT_HASH_MISMATCH',
  'AUDIT_PREV_MISMATCH',
  'AUDIT_VERSION',
  'AUDIT_MALFORMED',
  'AUDIT_TAIL_MISMATCH',
  'AUDIT_FILE_CORRUPT',
  'AUDIT_FILE_READ',
  'AUDIT_LINE_INVALID',
  'AUDIT_SINK_CLOSED',
  'AUDIT_TORN_TAIL',
  'AUDIT_WRITE_FAILED',
  'AUDIT_REPAIR_REFUSED',
] as const);
export type AuditErrorCode = (typeof AUDIT_ERROR_CODES)[number];

/**
 * Codes of errors that belong to no single area.
 *
 * @example
 * CORE_ERROR_CODES.includes('NOT_IMPLEMENTED'); // true
 */
export const CORE_ERROR_CODES = Object.freeze([
  'NOT_IMPLEMENTED',
  'CANONICAL_JSON_INVALID',
  'INPUT_TOO_DEEP',
  'INPUT_TOO_LARGE',
  'INPUT_JSON_INVALID',
  'CHANNEL_MESSAGE_TOO_LARGE',
  'CHANNEL_FRAME_INVALID',
] as const);
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

/**
 * Egress deny and error codes: those of core's policy building blocks and those of the
 * `@trust/egress` engine (the address guard, DNS, redirects, limits, the proxy and UDP relay).
 *
 * @example
 * EGRESS_ERROR_CODES.includes('EGRESS_PRIVATE_ADDRESS'); // true
 */
export const EGRESS_ERROR_CODES = Object.freeze([
  'EGRESS_DENY_ALL',
  'EGRESS_NO_POLICY',
  'EGRESS_HOST_NOT_ALLOWED',
  'EGRESS_HOST_DENIED',
  'EGRESS_METHOD_NOT_ALLOWED',
  'EGRESS_TUNNEL_PORT_NOT_ALLOWED',
  'EGRESS_OPTIONS_INVALID',
  'EGRESS_OPTIONS_UNKNOWN_KEY',
  'EGRESS_URL_INVALID',
  'EGRESS_TARGET_INVALID',
  'EGRESS_SCHEME',
  'EGRESS_USERINFO',
  'EGRESS_LOOPBACK',
  'EGRESS_PRIVATE_ADDRESS',
  'EGRESS_LINK_LOCAL',
  'EGRESS_METADATA',
  'EGRESS_UNSPECIFIED',
  'EGRESS_MULTICAST',
  'EGRESS_BROADCAST',
  'EGRESS_RESERVED',
  'EGRESS_ULA',
  'EGRESS_DENIED_CIDR',
  'EGRESS_PROTECTED_PORT',
  'EGRESS_DNS_FAILED',
  'EGRESS_DNS_EMPTY',
  'EGRESS_DNS_TIMEOUT',
  'EGRESS_POLICY_DENIED',
  'EGRESS_NO_TCP_POLICY',
  'EGRESS_NO_UDP_POLICY',
  'EGRESS_TOO_MANY_REDIRECTS',
  'EGRESS_REDIRECT_SCHEME',
  'EGRESS_REDIRECT_INVALID',
  'EGRESS_REDIRECT_BODY',
  'EGRESS_REDIRECT_REFUSED',
  'EGRESS_DOWNGRADE',
  'EGRESS_RESPONSE_TOO_LARGE',
  'EGRESS_HEADERS_TOO_LARGE',
  'EGRESS_TIMEOUT',
  'EGRESS_ABORTED',
  'EGRESS_CONNECT_FAILED',
  'EGRESS_PROTOCOL',
  'EGRESS_DATAGRAM_TOO_LARGE',
  'EGRESS_POLICY_INVALID',
  'EGRESS_REQUEST_MALFORMED',
  'EGRESS_CLIENT_TIMEOUT',
  'EGRESS_CONNECTION_LIMIT',
] as const);
export type EgressErrorCode = (typeof EGRESS_ERROR_CODES)[number];
