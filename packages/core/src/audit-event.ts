import type { Principal } from './principal.js';

/**
 * What a boundary records for one decision, before it is sealed into the chain. `details` must
 * never hold secrets (header values, keys, tokens): enforcement points redact before recording.
 */
export interface AuditInput {
  readonly principal: Principal;
  /** What was attempted, e.g. `egress.http`, `tool.call`, `sandbox.spawn`, `plugin.load`. */
  readonly action: string;
  /** What it was attempted on, e.g. a URL without userinfo or secrets, a tool name, a path. */
  readonly target: string;
  readonly decision: 'allow' | 'deny';
  readonly rule?: string;
  readonly code?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** A sealed audit event (format `v: 1`). `hash` covers every other field, including `prev`. */
export interface AuditEvent extends AuditInput {
  readonly v: 1;
  /** ISO-8601 UTC time. */
  readonly time: string;
  /** Hash of the previous event in the chain, or 64 zeros for the first. */
  readonly prev: string;
  /** Lowercase hex SHA-256 of the canonical JSON of this event without `hash`. */
  readonly hash: string;
}

/**
 * Where sealed events go. Sinks are pluggable (memory, JSONL file, an agent's SQLite file);
 * each sink keeps its own chain.
 */
export interface AuditSink {
  /** Seals `input` onto the chain and stores it. Returns the sealed event. */
  record(input: AuditInput): AuditEvent;
}
