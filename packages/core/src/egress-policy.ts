import type { Decision } from './decision.js';
import type { Principal } from './principal.js';
import type { CapabilityName } from './capability-name.js';

/**
 * One outbound HTTP(S) or WebSocket request as the policy sees it. The URL is already parsed
 * and canonicalised by the egress engine: the host is lowercase, without a trailing dot or
 * brackets, and userinfo has been rejected. `headers` is mutable: a policy may add credentials
 * here, so that the caller (a plugin, a sandboxed process, agent code) never holds the secret.
 */
export interface EgressHttpRequest {
  readonly method: string;
  /** The full URL, without userinfo. */
  readonly url: string;
  readonly scheme: 'http:' | 'https:' | 'ws:' | 'wss:';
  /** Canonical host: a lowercase name, an IPv4 dotted quad, or an IPv6 address without brackets. */
  readonly host: string;
  readonly port: number;
  /** Path plus query string. */
  readonly path: string;
  readonly headers: Headers;
}

/** A TCP or UDP peer. `host` is what the caller named (canonical); `ip` is the vetted address once known. */
export interface EgressPeer {
  readonly host: string;
  readonly port: number;
  readonly ip?: string;
}

/** Who asks, and under which capability. */
export interface EgressContext {
  readonly principal: Principal;
  readonly capability: CapabilityName;
}

/** Whether a policy's allow grants (`gate`) or only means "no objection" (`filter`). */
export type EgressPolicyRole = 'gate' | 'filter';

/**
 * The one interface every outbound byte is judged by. A policy decides destinations; the egress
 * engine always applies the address guard as well, on the address it actually dials.
 *
 * An absent `authorizeTcp` or `authorizeUdp` means deny.
 */
export interface EgressPolicy {
  /** A name for audit events and errors. */
  readonly name?: string;
  /**
   * `gate` (the default when absent) grants: its allow lets the request through. A `filter` may
   * deny or mutate `request.headers`, but its allow only means "no objection" and never grants
   * access. `chain(...)` applies these roles. The built-in filters deny when used on their own; an
   * enforcement point handed any other bare filter must treat it as granting nothing (evaluating
   * `chain(policy)` does exactly that).
   */
  readonly role?: EgressPolicyRole;
  authorizeHttp(request: EgressHttpRequest, context: EgressContext): Decision | Promise<Decision>;
  authorizeTcp?(peer: EgressPeer, context: EgressContext): Decision | Promise<Decision>;
  authorizeUdp?(peer: EgressPeer, context: EgressContext): Decision | Promise<Decision>;
}
