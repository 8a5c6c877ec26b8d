import type { TrustErrorCode } from './trust-error-code.js';

/**
 * The value every security check returns. A check never answers with a bare boolean: a denial
 * always carries a stable code and a reason a person can act on.
 *
 * @example
 * const d = deny('EGRESS_HOST_NOT_ALLOWED', 'api.evil.test is not on the allow list', { rule: 'allow-hosts' });
 * if (!d.allow) console.log(d.code, d.reason);
 */
export type Decision = Allow | Deny;

/** An allowed action. `rule` names the rule that allowed it, when one did. */
export interface Allow {
  readonly allow: true;
  readonly rule?: string;
  /**
   * The port the allowing rule names explicitly (`api.example.com:8443`), when it names one.
   * An HTTP proxy opens a `CONNECT` tunnel to a port other than 443 only when this equals the
   * tunnel's port: an allow without it (a rule without a port, a hand-written policy) never
   * opens a raw tunnel to another port.
   */
  readonly port?: number;
}

/**
 * A denied action, with a stable `code`, a `reason` and, where one exists, how to permit it. A
 * policy that denies for a reason of its own uses the nearest known code (for an egress policy,
 * `EGRESS_POLICY_DENIED`) and says why in `reason` and `rule`.
 */
export interface Deny<C extends TrustErrorCode = TrustErrorCode> {
  readonly allow: false;
  readonly code: C;
  readonly reason: string;
  readonly rule?: string;
  readonly hint?: string;
}

/**
 * Builds an allow decision; `extra.port` records a port the allowing rule names explicitly.
 *
 * @example
 * allow('allow-hosts'); // { allow: true, rule: 'allow-hosts' }
 * allow('allow-hosts:api.example.com:8443', { port: 8443 }); // { allow: true, rule: …, port: 8443 }
 */
export function allow(rule?: string, extra: { port?: number } = {}): Allow {
  const a: { -readonly [K in keyof Allow]: Allow[K] } = { allow: true };
  if (rule !== undefined) a.rule = rule;
  if (extra.port !== undefined) a.port = extra.port;
  return a;
}

/**
 * Builds a deny decision.
 *
 * @example
 * deny('EGRESS_HOST_NOT_ALLOWED', 'evil.test is not allowed', { hint: 'add "evil.test" to the allow list' });
 */
export function deny<C extends TrustErrorCode>(
  code: C,
  reason: string,
  extra: { rule?: string; hint?: string } = {},
): Deny<C> {
  const d: { -readonly [K in keyof Deny<C>]: Deny<C>[K] } = { allow: false, code, reason };
  if (extra.rule !== undefined) d.rule = extra.rule;
  if (extra.hint !== undefined) d.hint = extra.hint;
  return d;
}

/**
 * Narrows a decision to an allow.
 *
 * @example
 * if (isAllowed(decision)) console.log(decision.rule);
 */
export function isAllowed(decision: Decision): decision is Allow {
  return decision.allow === true;
}

/**
 * Narrows a decision to a deny.
 *
 * @example
 * if (isDenied(decision)) throw deniedError(decision);
 */
export function isDenied(decision: Decision): decision is Deny {
  return decision.allow !== true;
}
