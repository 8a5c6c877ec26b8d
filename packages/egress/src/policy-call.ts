import { deny, type Decision, type Deny, type EgressContext, type EgressHttpRequest, type EgressPeer, type EgressPolicy } from '@trust/core';
import { SENSITIVE_HEADERS } from './redact.js';

/** A policy answer, normalised: a deny always has a code; a throwing policy denies. */
function normalise(d: Decision | undefined, policyName: string): Decision {
  if (d === undefined || d === null || typeof d !== 'object') {
    return deny('EGRESS_POLICY_DENIED', `egress denied by policy ${policyName}: it returned no decision`, { rule: 'policy' });
  }
  if (d.allow === true) return d;
  const no = d as Deny;
  if (typeof no.code === 'string' && no.code !== '') return no;
  return deny('EGRESS_POLICY_DENIED', no.reason ?? `egress denied by policy ${policyName}`, { rule: no.rule ?? 'policy', ...(no.hint ? { hint: no.hint } : {}) });
}

/** Result of asking a policy about an HTTP request: the decision and the secrets it added. */
export interface HttpAuthorization {
  readonly decision: Decision;
  /** Values of headers the policy added or changed, plus caller credentials: never logged. */
  readonly secrets: readonly string[];
}

/** Calls `authorizeHttp`, fails closed on throw, and records which header values are secret. */
export async function authorizeHttp(policy: EgressPolicy, request: EgressHttpRequest, context: EgressContext): Promise<HttpAuthorization> {
  const before = new Map<string, string>();
  request.headers.forEach((v, k) => before.set(k, v));
  let decision: Decision;
  const name = policy.name ?? 'policy';
  try {
    decision = normalise(await policy.authorizeHttp(request, context), name);
  } catch {
    decision = deny('EGRESS_POLICY_DENIED', `egress denied: policy ${name} threw`, { rule: 'policy', hint: 'fix the policy; a throwing policy denies' });
  }
  const secrets: string[] = [];
  request.headers.forEach((v, k) => {
    if (before.get(k) !== v || SENSITIVE_HEADERS.includes(k)) secrets.push(v);
  });
  return { decision, secrets };
}

/** Calls `authorizeTcp`/`authorizeUdp`; an absent method denies, a throw denies. */
export async function authorizePeer(policy: EgressPolicy, kind: 'tcp' | 'udp', peer: EgressPeer, context: EgressContext): Promise<Decision> {
  const method = kind === 'tcp' ? policy.authorizeTcp : policy.authorizeUdp;
  const name = policy.name ?? 'policy';
  if (typeof method !== 'function') {
    return deny(kind === 'tcp' ? 'EGRESS_NO_TCP_POLICY' : 'EGRESS_NO_UDP_POLICY', `egress denied: policy ${name} has no authorize${kind === 'tcp' ? 'Tcp' : 'Udp'}, so ${kind.toUpperCase()} is denied`, {
      rule: 'policy',
      hint: `give the policy an authorize${kind === 'tcp' ? 'Tcp' : 'Udp'} method (e.g. allowHosts(rules, { ${kind}: true }))`,
    });
  }
  try {
    return normalise(await method.call(policy, peer, context), name);
  } catch {
    return deny('EGRESS_POLICY_DENIED', `egress denied: policy ${name} threw`, { rule: 'policy', hint: 'fix the policy; a throwing policy denies' });
  }
}
