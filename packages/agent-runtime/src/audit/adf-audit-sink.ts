import type Database from 'better-sqlite3';
import {
  GENESIS_HASH,
  sealEvent,
  verifyChain,
  type AuditEvent,
  type AuditInput,
  type AuditSink,
  type ChainVerdict,
} from '@trust/core';

/** An audit sink backed by an `.adf` file's `adf_audit` table, hash-chained. */
export interface AdfAuditSink extends AuditSink {
  /** Every event, oldest first. */
  list(options?: { limit?: number; action?: string }): AuditEvent[];
  /** Re-checks the whole chain with the core verifier. */
  verify(): ChainVerdict;
}

/**
 * Creates the sink. Sealing and inserting run in one transaction, reading the last hash inside
 * it, so two writers on the same file never fork the chain.
 *
 * @example
 * const sink = createAdfAuditSink(db, () => new Date());
 * sink.record({ principal, action: 'tool.call', target: 'fs_read', decision: 'allow' });
 */
export function createAdfAuditSink(db: Database.Database, clock: () => Date): AdfAuditSink {
  const last = db.prepare('SELECT hash FROM adf_audit ORDER BY id DESC LIMIT 1').pluck();
  const insert = db.prepare('INSERT INTO adf_audit (event_json, hash, prev) VALUES (?, ?, ?)');
  const seal = db.transaction((input: AuditInput): AuditEvent => {
    const prev = (last.get() as string | undefined) ?? GENESIS_HASH;
    const event = sealEvent(input, prev, clock().toISOString());
    insert.run(JSON.stringify(event), event.hash, event.prev);
    return event;
  });
  const all = () =>
    (db.prepare('SELECT event_json FROM adf_audit ORDER BY id').pluck().all() as string[]).map(
      (j) => JSON.parse(j) as AuditEvent,
    );
  return {
    record: (input) => seal.immediate(input),
    list(options = {}) {
      const events = all().filter((e) => options.action === undefined || e.action === options.action);
      return options.limit === undefined ? events : events.slice(-options.limit);
    },
    verify: () => verifyChain(all()),
  };
}
