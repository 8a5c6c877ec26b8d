import type { AuditSink, Decision, Deny, Principal } from '@trust/core';

/** The facts of one egress decision; turned into one audit event. Holds no secrets. */
export interface EgressAuditFacts {
  readonly principal: Principal;
  readonly action: 'egress.http' | 'egress.ws' | 'egress.tcp' | 'egress.udp';
  /** A redacted URL, or `tcp://host:port` / `udp://host:port`. */
  readonly target: string;
  readonly decision: Decision;
  readonly started: number;
  readonly method?: string;
  readonly hop?: number;
  readonly status?: number;
  readonly addresses?: readonly string[];
  readonly dialled?: string;
  readonly policy?: string;
  /** A transport failure after the decision allowed (e.g. `EGRESS_TIMEOUT`). */
  readonly failure?: string;
  readonly via?: string;
}

/** Records one event. Without a sink this does nothing. Details carry no header values. */
export function recordEgress(sink: AuditSink | undefined, facts: EgressAuditFacts, now: () => number): void {
  if (sink === undefined) return;
  const d = facts.decision;
  const details: Record<string, unknown> = { durationMs: Math.max(0, now() - facts.started) };
  if (facts.method !== undefined) details.method = facts.method;
  if (facts.hop !== undefined) details.hop = facts.hop;
  if (facts.status !== undefined) details.status = facts.status;
  if (facts.addresses !== undefined) details.resolved = [...facts.addresses];
  if (facts.dialled !== undefined) details.dialled = facts.dialled;
  if (facts.policy !== undefined) details.policy = facts.policy;
  if (facts.failure !== undefined) details.failure = facts.failure;
  if (facts.via !== undefined) details.via = facts.via;
  const code = d.allow ? facts.failure : (d as Deny).code;
  sink.record({
    principal: facts.principal,
    action: facts.action,
    target: facts.target,
    decision: d.allow ? 'allow' : 'deny',
    ...(d.rule !== undefined ? { rule: d.rule } : {}),
    ...(code !== undefined ? { code } : {}),
    details,
  });
}
