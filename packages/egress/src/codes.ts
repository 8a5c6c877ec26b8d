/**
 * Stable error and decision codes of `@trust/egress`. Callers and tests match on these, never on
 * messages. Every deny carries one of them plus a hint that says how to permit the action.
 */
export const EGRESS_CODES = Object.freeze([
  'EGRESS_OPTIONS_INVALID',
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
  'EGRESS_DATAGRAM_TOO_LARGE',
  'EGRESS_HEADERS_TOO_LARGE',
  'EGRESS_TIMEOUT',
  'EGRESS_ABORTED',
  'EGRESS_CONNECT_FAILED',
  'EGRESS_PROTOCOL',
] as const);

/** One of {@link EGRESS_CODES}. A policy may also deny with its own code; that code is kept. */
export type EgressCode = (typeof EGRESS_CODES)[number];
