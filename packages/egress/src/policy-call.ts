import {
  deny,
  type Decision,
  type Deny,
  type EgressContext,
  type EgressHttpRequest,
  type EgressPeer,
  type EgressPolicy,
} from '@trust/core';
import { SENSITIVE_HEADERS } from './redact.js';

/**
 * A policy answer, normalised so it fails closed: only `allow: true` allows; `allow: false`
 * keeps the policy's code (`EGRESS_POLICY_DENIED` when it has none); anything else (no answer,
 * `{ allow: 'yes' }`, an array, a primitive) is a deny with code `EGRESS_POLICY_DENIED` and rule
 * `policy-malformed`. A throwing policy denies (see the callers).
 */
export function normalisePolicyAnswer(d: unknown, policyName: string): Decision {
  if (d === undefined || d === null || typeof d !== 'object' || Array.isArray(d)) {
    return deny('EGRESS_POLICY_DENIED', `egress denied by policy ${policyName}: it returned no decision`, {
      rule: 'policy-malformed',
      hint: 'a policy must return { allow: true } or { allow: false, code, reason }',
    });
  }
  const answer = d as { allow?: unknown; code?: unknown; reason?: unknown; rule?: unknown; hint?: unknown };
  if (answer.allow === true) return d as Decision;
  if (answer.allow !== false) {
    return deny('EGRESS_POLICY_DENIED', `egress denied by policy ${policyName}: it returned a malformed decision`, {
      rule: 'policy-malformed',
      hint: 'a policy must return { allow: true } or { allow: false, code, reason }',
    });
  }
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  // A policy written in plain JavaScript may deny with a code of its own; it is kept as the
  // policy wrote it (typed policies use a known code, `Deny['code']`).
  const code = text(answer.code) as Deny['code'] | undefined;
  const reason = text(answer.reason);
  if (code !== undefined && reason !== undefined) return d as Deny;
  const hint = text(answer.hint);
  return deny(code ?? 'EGRESS_POLICY_DENIED', reason ?? `egress denied by policy ${policyName}`, {
    rule: text(answer.rule) ?? 'policy',
    ...(hint ? { hint } : {}),
  });
}
const normalise = normalisePolicyAnswer;

/** Result of asking a policy about an HTTP request: the decision and the secrets it added. */
export interface HttpAuthorization {
  readonly decision: Decision;
  /** Values of headers the policy added or changed, plus caller credentials: never logged. */
  readonly secrets: readonly string[];
  /** Whether the policy added or changed a header (e.g. injected a credential). */
  readonly injected: boolean;
}

/** Calls `authorizeHttp`, fails closed on throw, and records which header values are secret. */
export async function authorizeHttp(
  policy: EgressPolicy,
  request: EgressHttpRequest,
  context: EgressContext,
): Promise<HttpAuthorization> {
  const before = new Map<string, string>();
  request.headers.forEach((v, k) => {
    before.set(k, v);
  });
  let decision: Decision;
  const name = policy.name ?? 'policy';
  try {
    decision = normalise(await policy.authorizeHttp(request, context), name);
  } catch {
    decision = deny('EGRESS_POLICY_DENIED', `egress denied: policy ${name} threw`, {
      rule: 'policy',
      hint: 'fix the policy; a throwing policy denies',
    });
  }
  const secrets: string[] = [];
  let injected = false;
  request.headers.forEach((v, k) => {
    if (before.get(k) !== v) injected = true;
    if (before.get(k) !== v || SENSITIVE_HEADERS.includes(k)) secrets.push(v);
  });
  return { decision, secrets, injected };
}

/** Calls `authorizeTcp`/`authorizeUdp`; an absent method denies, a throw denies. */
export async function authorizePeer(
  policy: EgressPolicy,
  kind: 'tcp' | 'udp',
  peer: EgressPeer,
  context: EgressContext,
): Promise<Decision> {
  const method = kind === 'tcp' ? policy.authorizeTcp : policy.authorizeUdp;
  const name = policy.name ?? 'policy';
  if (typeof method !== 'function') {
    return deny(
      kind === 'tcp' ? 'EGRESS_NO_TCP_POLICY' : 'EGRESS_NO_UDP_POLICY',
      `egress denied: policy ${name} has no ` +
        `authorize${kind === 'tcp' ? 'Tcp' : 'Udp'}, ` +
        `so ${kind.toUpperCase()} is denied`,
      {
        rule: 'policy',
        hint:
          `give the policy an authorize${kind === 'tcp' ? 'Tcp' : 'Udp'} ` +
          `method (e.g. allowHosts(rules, { ${kind}: true }))`,
      },
    );
  }
  try {
    return normalise(await method.call(policy, peer, context), name);
  } catch {
    return deny('EGRESS_POLICY_DENIED', `egress denied: policy ${name} threw`, {
      rule: 'policy',
      hint: 'fix the policy; a throwing policy denies',
    });
  }
}
