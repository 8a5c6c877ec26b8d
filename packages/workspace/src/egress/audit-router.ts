import type { AuditEvent, AuditInput, AuditSink } from '@trust/core';

/** One audit sink that files each event in the log of the agent its principal names. */
export interface AuditRouter {
  /** The sink the workspace's egress engine, sandboxes and MCP servers record into. */
  readonly sink: AuditSink;
  /** Routes events naming `agent` (its id, or its DID) to `sink` until the returned function is called. */
  attach(agent: string, sink: AuditSink): () => void;
}

/**
 * Routes every decision to its principal's own log: an event whose `principal.agent` (or, for an
 * agent's own calls, `principal.id`) names an open agent goes to that agent's hash-chained log;
 * anything else (plugins, sandbox runs, agents not open) goes to `fallback`, the workspace's egress
 * log. Nothing is dropped: a decision always lands in exactly one chain.
 *
 * @example
 * const router = createAuditRouter(createJsonlAuditSink('egress-audit.jsonl'));
 * const detach = router.attach('helper', agent.adf.audit);
 */
export function createAuditRouter(fallback: AuditSink): AuditRouter {
  const sinks = new Map<string, AuditSink>();
  const pick = (input: AuditInput): AuditSink => {
    const p = input.principal;
    return (p.agent !== undefined ? sinks.get(p.agent) : undefined) ?? sinks.get(p.id) ?? fallback;
  };
  return {
    sink: {
      record(input: AuditInput): AuditEvent {
        return pick(input).record(input);
      },
    },
    attach(agent, sink) {
      sinks.set(agent, sink);
      return () => {
        if (sinks.get(agent) === sink) sinks.delete(agent);
      };
    },
  };
}
