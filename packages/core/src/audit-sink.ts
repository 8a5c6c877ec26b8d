import type { AuditEvent, AuditSink } from './audit-event.js';
import { GENESIS_HASH, sealEvent } from './audit-chain.js';
import type { Decision } from './decision.js';
import type { Principal } from './principal.js';

/** An in-memory sink, for tests and short-lived hosts. */
export interface MemoryAuditSink extends AuditSink {
  /** A frozen copy of the events recorded so far. */
  events(): readonly AuditEvent[];
  /** The hash of the last event (or the starting head). */
  head(): string;
}

/**
 * Creates an in-memory, hash-chained sink. `clock` defaults to the system clock; `head`
 * (default `GENESIS_HASH`) continues an existing chain.
 *
 * @example
 * const sink = createMemoryAuditSink();
 * sink.record({ principal, action: 'egress.http', target: 'https://api.example.com/', decision: 'allow' });
 * verifyChain(sink.events()).ok; // true
 */
export function createMemoryAuditSink(
  options: { readonly clock?: () => Date; readonly head?: string } = {},
): MemoryAuditSink {
  const clock = options.clock ?? (() => new Date());
  const events: AuditEvent[] = [];
  let head = options.head ?? GENESIS_HASH;
  return Object.freeze({
    record(input) {
      const event = sealEvent(input, head, clock().toISOString());
      events.push(event);
      head = event.hash;
      return event;
    },
    events: () => Object.freeze([...events]),
    head: () => head,
  } satisfies MemoryAuditSink);
}

/** What `auditDecision` records. */
export interface AuditDecisionInput {
  readonly principal: Principal;
  readonly action: string;
  readonly target: string;
  readonly decision: Decision;
  /** Extra context; must hold no secrets. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * Records a Decision: maps it to `decision`, `rule` and `code`, and for a deny adds its
 * `reason` to `details`. Returns the sealed event.
 *
 * @example
 * auditDecision(sink, {
 *   principal,
 *   action: 'egress.http',
 *   target: url,
 *   decision: await policy.authorizeHttp(req, ctx),
 * });
 */
export function auditDecision(sink: AuditSink, input: AuditDecisionInput): AuditEvent {
  const d = input.decision;
  const details = d.allow ? input.details : { ...input.details, reason: d.reason };
  return sink.record({
    principal: input.principal,
    action: input.action,
    target: input.target,
    decision: d.allow ? 'allow' : 'deny',
    ...(d.rule !== undefined ? { rule: d.rule } : {}),
    ...(d.allow ? {} : { code: d.code }),
    ...(details !== undefined ? { details } : {}),
  });
}
