import Database from 'better-sqlite3';
import type { QueryCaps } from './sql-engine.js';
import { LANE_ENTRY, loadEntry } from './sql-extension.js';
import type { WireQueryResult } from './sql-host-protocol.js';
import { collectRows } from './sql-rows.js';

/** A statement whose answer through the worker took longer than this (ms) is not promoted. */
const LANE_PROMOTE_MAX_MS = 0.5;
/** Statements remembered; the memory starts over when full. */
const MAX_STATEMENTS = 512;

/** A statement seen for the first time: what the lane must know to promote it after the worker's answer. */
export interface LaneCandidate {
  readonly sql: string;
  readonly version: number;
  readonly start: number;
}

/**
 * The host-thread fast lane for one agent's `db_query` (see `sqlite3_trustlane_init` in
 * native/sql-interrupt.c): its own read-only `query_only`, `trusted_schema=OFF` connection, whose
 * statements a watchdog thread stops at 1 ms, whose values stop at 8 KiB and whose programs stop at
 * 20 000 steps; `busy_timeout` 0, so it never sleeps on a lock. A statement costs the host's thread
 * at most what the worker's answer would: the host waits for that synchronously for up to 1 ms too.
 *
 * It runs only statements the agent's SQL worker already judged and answered (at the same schema
 * version, quickly); every statement is judged in the worker first. It never decides: whatever it
 * cannot finish (a stop, a value too large, a lock, an error, a schema change)
 * returns `undefined` and the caller asks the worker, whose answer is authoritative. A statement
 * it could not finish leaves it until the worker answers it quickly again.
 */
export interface SqlFastLane {
  /** The rows, or `undefined`: not promoted, or not finished here. */
  run(sql: string, params: unknown[], caps: QueryCaps): WireQueryResult | undefined;
  /** Before asking the worker about a statement the lane does not know; `undefined` if it knows it. */
  candidate(sql: string): LaneCandidate | undefined;
  /** After the worker answered the candidate's query: promotes it if it was quick and the schema held. */
  promote(c: LaneCandidate): void;
  close(): void;
}

interface Promoted {
  readonly version: number;
  stmt?: Database.Statement;
  columns?: readonly string[];
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
  const known = new Map<string, Promoted>();

  function remember(sql: string, v: Promoted): void {
    if (known.size >= MAX_STATEMENTS) known.clear();
    known.set(sql, v);
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
      if (p === undefined || !db.open) return undefined;
      try {
        return execute(sql, p, params, caps);
      } catch {
        // Stopped, too large, busy or failed: the worker answers, and promotes it again only if quick.
        known.delete(sql);
        return undefined;
      } finally {
        try {
          if (db.inTransaction) end.run();
        } catch {
          db.close(); // a read it cannot end: the lane closes, the worker answers everything
        }
      }
    },
    candidate(sql) {
      if (known.has(sql) || !db.open) return undefined;
      return { sql, version: schemaVersion.get() as number, start: performance.now() };
    },
    promote(c) {
      if (!db.open || known.has(c.sql) || performance.now() - c.start > LANE_PROMOTE_MAX_MS) return;
      if ((schemaVersion.get() as number) !== c.version) return;
      remember(c.sql, { version: c.version });
    },
    close() {
      known.clear();
      if (db.open) db.close();
    },
  };
}
