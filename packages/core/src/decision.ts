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
}

/** A denied action, with a stable `code`, a `reason` and, where one exists, how to permit it. */
export interface Deny {
  readonly allow: false;
  readonly code: string;
  readonly reason: string;
  readonly rule?: string;
  readonly hint?: string;
}

/**
 * Builds an allow decision.
 *
 * @example
 * allow('allow-hosts'); // { allow: true, rule: 'allow-hosts' }
 */
export function allow(rule?: string): Allow {
  return rule === undefined ? { allow: true } : { allow: true, rule };
}

/**
 * Builds a deny decision.
 *
 * @example
 * deny('EGRESS_HOST_NOT_ALLOWED', 'evil.test is not allowed', { hint: 'add "evil.test" to the allow list' });
 */
export function deny(code: string, reason: string, extra: { rule?: string; hint?: string } = {}): Deny {
  const d: { -readonly [K in keyof Deny]: Deny[K] } = { allow: false, code, reason };
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
