import type { AuditEvent } from '@trust/core';
import type { ChainStatus, ControlAgents } from './agent-registry.js';

/** Where a log's decisions come from. */
export type AuditLogKind = 'agent' | 'plugin' | 'sandbox' | 'egress' | 'control';

/**
 * One log of decisions the host keeps besides the agents' own chains (e.g. the control server's
 * edge log, the sandbox runs). `chain` is the verification of a hash-chained log; `null` says the
 * log is a plain record, not a chain, so the timeline never claims it verified.
 */
export interface AuditLogView {
  readonly name: string;
  readonly kind: AuditLogKind;
  readonly chain: ChainStatus | null;
  /** Events of the log, oldest first. Sealed events keep `hash`; plain records may omit it. */
  readonly events: readonly AuditTimelineInput[];
  /**
   * Policies of this log's events by key (e.g. the SHA-256 of a sandbox run's egress policy): an
   * event whose `details.policy` is a key here was decided under that policy.
   */
  readonly policies?: Readonly<Record<string, unknown>>;
}

/** An event as a log hands it over: an audit event, `prev`/`hash`/`v` optional for plain records. */
export type AuditTimelineInput = Omit<AuditEvent, 'v' | 'prev' | 'hash'> & { readonly hash?: string };

/** One row of the timeline: the event and the log it belongs to. */
export type AuditTimelineRow = AuditTimelineInput & { readonly log: string; readonly kind: AuditLogKind };

/** The merged timeline: each log with its chain status, and the newest rows first. */
export interface AuditTimeline {
  readonly logs: readonly {
    readonly name: string;
    readonly kind: AuditLogKind;
    readonly chain: ChainStatus | null;
    readonly count: number;
  }[];
  readonly events: readonly AuditTimelineRow[];
  /**
   * The policies the returned rows name in `details.policy`, by `<log> <key>`: the studio opens a
   * denial's rule in the policy its run recorded (also after a restart).
   */
  readonly policies: Readonly<Record<string, unknown>>;
}

/** The most rows the timeline returns (the newest). */
export const MAX_TIMELINE_ROWS = 1000;

/**
 * Merges every agent's audit chain (verified one by one) with the host's logs into one timeline,
 * newest first. An agent whose runtime cannot list or verify its log is shown with a chain that
 * says so, never as verified.
 *
 * @example
 * const timeline = await buildAuditTimeline(agents, await hostLogs());
 */
export async function buildAuditTimeline(
  agents: ControlAgents,
  hostLogs: readonly AuditLogView[],
  max = MAX_TIMELINE_ROWS,
): Promise<AuditTimeline> {
  const logs: AuditLogView[] = [];
  for (const summary of await agents.list()) {
    const agent = await agents.open(summary.id);
    if (typeof agent.audit !== 'function') {
      logs.push({
        name: `agent:${summary.id}`,
        kind: 'agent',
        chain: { ok: false, count: 0, reason: 'this runtime cannot list its audit log yet' },
        events: [],
      });
      continue;
    }
    const events = await agent.audit();
    const chain =
      typeof agent.verifyAudit === 'function'
        ? await agent.verifyAudit()
        : { ok: false, count: events.length, reason: 'this runtime cannot verify its chain yet' };
    logs.push({ name: `agent:${summary.id}`, kind: 'agent', chain, events });
  }
  logs.push(...hostLogs);
  const rows: AuditTimelineRow[] = [];
  for (const log of logs) for (const e of log.events) rows.push({ ...strip(e), log: log.name, kind: log.kind });
  rows.sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0));
  const events = rows.slice(0, max);
  return {
    logs: logs.map((l) => ({ name: l.name, kind: l.kind, chain: l.chain, count: l.events.length })),
    events,
    policies: policiesOf(events, logs),
  };
}

/** The policies the rows name, each looked up in its own row's log only (keys of other logs never match). */
function policiesOf(rows: readonly AuditTimelineRow[], logs: readonly AuditLogView[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const byName = new Map(logs.map((l) => [l.name, l.policies]));
  for (const row of rows) {
    const key = row.details?.policy;
    if (typeof key !== 'string') continue;
    const policies = byName.get(row.log);
    if (policies !== undefined && Object.hasOwn(policies, key)) out[`${row.log} ${key}`] = policies[key];
  }
  return out;
}

/** The fields the timeline shows; `prev` and `v` stay in the log. */
function strip(e: AuditTimelineInput & { prev?: unknown; v?: unknown }): AuditTimelineInput {
  const { prev: _prev, v: _v, ...rest } = e;
  return rest;
}
