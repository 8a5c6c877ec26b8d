import Database from 'better-sqlite3';
import type { QueryCaps } from './sql-engine.js';
import { LANE_ENTRY, loadEntry } from './sql-extension.js';
import type { WireQueryResult } from './sql-host-protocol.js';
import { collectRows } from './sql-rows.js';

/** Statements remembered; the memory starts over when full. */
const MAX_STATEMENTS = 512;
/** After its k-th failure in a row here, a statement needs 2^k answers of the worker to return (at most this many). */
const MAX_OWED = 1024;

/** A statement the lane does not run now: what the lane must know to promote it after the worker's answer. */
export interface LaneCandidate {
  readonly sql: string;
  readonly version: number;
}

/**
 * The host-thread fast lane for one agent's `db_query` (see `sqlite3_trustlane_init` in
 * native/sql-interrupt.c): its own read-only `query_only`, `trusted_schema=OFF` connection, whose
 * statements a watchdog thread stops after about 1 ms of work (25 ms of wall time at most),
 * whose values stop at 8 KiB and whose programs stop at 20 000 steps; `busy_timeout` 0, so it never
 * sleeps on a lock. A statement costs the host's thread about what the worker's answer would: the
 * host waits for that synchronously for up to 1 ms too.
 *
 * It runs only statements the agent's SQL worker already judged and answered at the same schema
 * version; every statement is judged in the worker first. It never decides: whatever it cannot
 * finish (a stop, a value too large, a lock, an error, a schema change) returns `undefined` and
 * the caller asks the worker, whose answer is authoritative. A statement that failed here k times
 * in a row returns only after 2^k answers of the worker, so a statement that is slow for good
 * costs the lane next to nothing.
 */
export interface SqlFastLane {
  /** The rows, or `undefined`: not promoted, or not finished here. */
  run(sql: string, params: unknown[], caps: QueryCaps): WireQueryResult | undefined;
  /** Before asking the worker about a statement the lane does not run now; `undefined` if not needed. */
  candidate(sql: string): LaneCandidate | undefined;
  /** After the worker answered the candidate's query: promotes it if it is due and the schema held. */
  promote(c: LaneCandidate): void;
  close(): void;
}

interface Promoted {
  readonly kind: 'promoted';
  readonly version: number;
  failures: number;
  stmt?: Database.Statement;
  columns?: readonly string[];
}
interface Demoted {
  readonly kind: 'demoted';
  readonly failures: number;
  owed: number;
}

/**
 * Opens the lane on the agent's file with the compiled interrupt library `lib`; throws when the
 * library cannot be loaded (the guard then keeps every query in the worker).
 *
 * @example
 * const lane = openSqlFastLane(adf.path, lib);
 */
export function openSqlFastLane(path: string, lib: string): SqlFastLane {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    loadEntry(db, lib, LANE_ENTRY); // before any statement of the agent's
    db.pragma('trusted_schema = OFF');
    db.pragma('query_only = ON');
    db.pragma('busy_timeout = 0');
    db.pragma('cache_size = -1024');
  } catch (e) {
    db.close();
    throw e;
  }
  const schemaVersion = db.prepare('PRAGMA schema_version').pluck();
  const begin = db.prepare('BEGIN');
  const end = db.prepare('ROLLBACK'); // it only ever reads
  const known = new Map<string, Promoted | Demoted>();

  function remember(sql: string, v: Promoted | Demoted): void {
    if (known.size >= MAX_STATEMENTS && !known.has(sql)) known.clear();
    known.set(sql, v);
  }
  /** The schema version now, or `undefined` when it cannot be read (stopped, busy, closed). */
  function version(): number | undefined {
    try {
      return db.open ? (schemaVersion.get() as number) : undefined;
    } catch {
      return undefined;
    }
  }
  /** Ends the read; a read that cannot end (tried twice) closes the lane: the worker answers everything. */
  function endRead(): void {
    for (let i = 0; i < 2 && db.open && db.inTransaction; i++) {
      try {
        end.run();
      } catch {
        /* stopped or busy: once more */
      }
    }
    if (db.open && db.inTransaction) db.close();
  }

  function execute(sql: string, p: Promoted, params: unknown[], caps: QueryCaps): WireQueryResult | undefined {
    // One read transaction: the version checked is the snapshot the statement runs on, so a schema
    // change committed meanwhile (by another connection) cannot slip in between. A schema change
    // since the worker judged the statement: the worker judges it again.
    begin.run();
    if ((schemaVersion.get() as number) !== p.version) {
      known.delete(sql);
      return undefined;
    }
    if (!p.stmt) {
      const stmt = db.prepare(sql);
      if (!stmt.reader) throw new Error('not a reader');
      stmt.raw(true);
      p.columns = stmt.columns().map((c) => c.name);
      p.stmt = stmt;
    }
    const it = p.stmt.iterate(...(params as never[])) as IterableIterator<unknown[]>;
    return collectRows(it, p.columns!, caps).result;
  }

  return {
    run(sql, params, caps) {
      const p = known.get(sql);
      if (p?.kind !== 'promoted' || !db.open) return undefined;
      try {
        const rows = execute(sql, p, params, caps);
        if (rows) p.failures = 0;
        return rows;
      } catch {
        // Stopped, too large, busy or failed: the worker answers, and it returns here only later.
        const failures = p.failures + 1;
        remember(sql, { kind: 'demoted', failures, owed: Math.min(MAX_OWED, 2 ** failures) });
        return undefined;
      } finally {
        endRead();
      }
    },
    candidate(sql) {
      const k = known.get(sql);
      if (k?.kind === 'promoted') return undefined;
      const v = version();
      return v === undefined ? undefined : { sql, version: v };
    },
    promote(c) {
      const k = known.get(c.sql);
      if (k?.kind === 'promoted') return;
      if (k && --k.owed > 0) return;
      if (version() !== c.version) return;
      remember(c.sql, { kind: 'promoted', version: c.version, failures: k?.failures ?? 0 });
    },
    close() {
      known.clear();
      if (db.open) db.close();
    },
  };
}
