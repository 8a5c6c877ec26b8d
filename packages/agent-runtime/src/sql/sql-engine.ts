import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { TrustError, deniedError, deny, isDenied, type Decision } from '@trust/core';
import { checkSchemaDiff, schemaSnapshot } from './schema-diff.js';
import {
  analyzeStatement,
  buildRootMap,
  leadingVerb,
  type RootMap,
  type StatementAnalysis,
} from './statement-analysis.js';
import { evaluateSqlAccess, type SqlMode, type TableProtection } from './sql-policy.js';
import type { WireQueryResult } from './sql-host-protocol.js';
import { collectRows } from './sql-rows.js';

/** Caps for one db_query, decided by the host from the agent's config. */
export interface QueryCaps {
  readonly maxRows: number;
  readonly maxBytes: number;
}
/** Result of a db_query. `truncatedBy` says which cap stopped it. */
export interface QueryResult {
  readonly columns: string[];
  readonly rows: Record<string, unknown>[];
  readonly truncated: boolean;
  readonly truncatedBy?: 'rows' | 'bytes';
}
/** Result of a db_execute. */
export interface ExecuteResult {
  readonly changes: number;
  readonly lastInsertRowid: number;
}

/** What the SQL host process does; it owns its connections and never sees the host's. */
export interface SqlEngine {
  check(
    mode: SqlMode,
    sql: string,
    params: unknown[],
    protections: Readonly<Record<string, TableProtection>>,
    authorized: boolean,
  ): Decision;
  /** `binary`: the rows hold a value JSON cannot carry exactly (see sql-wire.ts). */
  query(sql: string, params: unknown[], caps: QueryCaps): { result: WireQueryResult; binary: boolean };
  execute(
    sql: string,
    params: unknown[],
    protections: Readonly<Record<string, TableProtection>>,
    authorized: boolean,
    maxGrowthBytes: number,
  ): ExecuteResult;
  /** After a write: folds a WAL over 1 MiB back into the file and truncates it (never waits for readers). */
  checkpoint(): void;
  close(): void;
}

const CACHE_MAX = 512;
/** A write that leaves the WAL larger than this is folded back and the WAL truncated. */
const WAL_TRUNCATE_BYTES = 1024 * 1024;

interface Prepared {
  readonly stmt: Database.Statement;
  readonly columns: string[];
}

/**
 * Opens the agent's file twice: a read-only `query_only` connection for db_query and a
 * read-write one for db_execute, both with `trusted_schema=OFF`. Every statement is checked
 * from its compiled program (statement-analysis) before it runs, exactly as on the host before.
 * `onOpen` runs on each connection before anything else.
 */
export function createSqlEngine(path: string, options: { onOpen?: (db: Database.Database) => void } = {}): SqlEngine {
  const ro = new Database(path, { readonly: true, fileMustExist: true });
  const rw = new Database(path, { fileMustExist: true });
  // Before any agent statement: e.g. the worker registers both connections for interruption.
  options.onOpen?.(ro);
  options.onOpen?.(rw);
  ro.pragma('trusted_schema = OFF');
  ro.pragma('query_only = ON');
  ro.pragma('busy_timeout = 2000');
  rw.pragma('trusted_schema = OFF');
  rw.pragma('busy_timeout = 2000');
  rw.pragma('foreign_keys = ON');
  // A small page cache keeps the process's native memory modest; a big write spills to the WAL.
  rw.pragma('cache_size = -4096');
  ro.pragma('cache_size = -4096');
  const conns = { query: ro, execute: rw } as const;
  const version = {
    query: ro.prepare('PRAGMA schema_version').pluck(),
    execute: rw.prepare('PRAGMA schema_version').pluck(),
  };
  const roots = { query: { v: -1, map: new Map() as RootMap }, execute: { v: -1, map: new Map() as RootMap } };
  const verdicts = new Map<string, { analysis: StatementAnalysis | undefined; decision: Decision }>();
  const statements = new Map<string, Prepared>();
  const pageSize = rw.pragma('page_size', { simple: true }) as number;
  const pageCount = rw.prepare('PRAGMA page_count').pluck();
  // The counters of every table that is not the agent's (local_* by its exact prefix), in a stable order.
  const foreignCounters = rw
    .prepare("SELECT name, seq FROM sqlite_sequence WHERE lower(substr(name, 1, 6)) <> 'local_' ORDER BY name, seq")
    .raw(true);
  let busyLowered = false;

  function analyze(
    mode: SqlMode,
    sql: string,
    params: unknown[],
    prot: Readonly<Record<string, TableProtection>>,
    authorized: boolean,
    v: number,
  ): { analysis: StatementAnalysis | undefined; decision: Decision } {
    const db = conns[mode];
    const key = `${mode}\0${v}\0${authorized ? 1 : 0}\0${mode === 'execute' ? JSON.stringify(prot) : ''}\0${sql}`;
    const hit = verdicts.get(key);
    if (hit) return hit;
    const r = roots[mode];
    if (r.v !== v) {
      r.map = buildRootMap(db);
      r.v = v;
    }
    let result: { analysis: StatementAnalysis | undefined; decision: Decision };
    const verb = leadingVerb(sql);
    if (verb === 'EXPLAIN' || verb === 'PRAGMA' || verb === 'ATTACH' || verb === 'DETACH') {
      result = {
        analysis: undefined,
        decision: deny('SQL_VERB_DENIED', `${verb} is not allowed`, { rule: 'sql-verb' }),
      };
    } else {
      try {
        db.prepare(sql); // rejects more than one statement and syntax errors, without running anything
        const analysis = analyzeStatement(db, sql, r.map, params);
        result = { analysis, decision: evaluateSqlAccess(analysis, mode, prot, authorized) };
      } catch (e) {
        const msg = (e as Error).message;
        result = /more than one statement/.test(msg)
          ? {
              analysis: undefined,
              decision: deny('SQL_MULTIPLE_STATEMENTS', 'only one statement per call is allowed', {
                rule: 'sql-single',
                hint: 'send each statement separately',
              }),
            }
          : {
              analysis: undefined,
              decision: deny('SQL_INVALID', `SQLite rejected the statement: ${msg}`, { rule: 'sql-compile' }),
            };
      }
    }
    if (verdicts.size >= CACHE_MAX) verdicts.clear();
    verdicts.set(key, result);
    return result;
  }

  return {
    check: (mode, sql, params, prot, authorized) =>
      analyze(mode, sql, params, prot, authorized, version[mode].get() as number).decision,
    query(sql, params, caps) {
      // Schema version first: a cached verdict or statement from an older schema is never used.
      const v = version.query.get() as number;
      const { decision } = analyze('query', sql, params, {}, false, v);
      if (isDenied(decision)) throw deniedError(decision);
      const skey = `${v}\0${sql}`;
      let prepared = statements.get(skey);
      if (!prepared) {
        if (statements.size >= CACHE_MAX) statements.clear();
        const stmt = ro.prepare(sql);
        prepared = { stmt, columns: stmt.columns().map((c) => c.name) };
        if (stmt.reader) stmt.raw(true); // rows as arrays; a non-reader fails in iterate() below as before
        statements.set(skey, prepared);
      }
      const { stmt, columns } = prepared;
      return collectRows(stmt.iterate(...(params as never[])) as IterableIterator<unknown[]>, columns, caps);
    },
    execute(sql, params, prot, authorized, maxGrowthBytes) {
      if (busyLowered) {
        rw.pragma('busy_timeout = 2000');
        busyLowered = false;
      }
      const { analysis, decision } = analyze('execute', sql, params, prot, authorized, version.execute.get() as number);
      if (isDenied(decision)) throw deniedError(decision);
      const run = rw.transaction(() => {
        // The file may grow by at most maxGrowthBytes during this statement: SQLite itself
        // refuses (SQLITE_FULL) to allocate a page past max_page_count, and the transaction rolls back.
        const start = pageCount.get() as number;
        rw.pragma(`max_page_count = ${start + Math.max(1, Math.floor(maxGrowthBytes / pageSize))}`);
        const before = analysis?.ddl ? schemaSnapshot(rw) : undefined;
        const counters = analysis?.writes.has('sqlite_sequence') ? foreignCounters.all() : undefined;
        const r = rw.prepare(sql).run(...(params as never[]));
        if (counters && JSON.stringify(counters) !== JSON.stringify(foreignCounters.all()))
          throw deniedError(
            deny(
              'SQL_WRITE_DENIED',
              'the statement changes the sqlite_sequence counter of a table that is not local_*',
              {
                rule: 'sql-sequence',
                hint: 'only the counters of local_* tables (AUTOINCREMENT) may change; the statement was rolled back',
              },
            ),
          ); // rolls the whole statement back
        if (before) {
          const d = checkSchemaDiff(rw, before, schemaSnapshot(rw), prot, authorized);
          if (isDenied(d)) throw deniedError(d); // rolls the whole statement back
        }
        return { changes: r.changes, lastInsertRowid: Number(r.lastInsertRowid) };
      });
      try {
        return run.immediate();
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_FULL') {
          throw new TrustError(
            'SQL_GROWTH_LIMIT',
            `db_execute would grow the agent file by more than ${maxGrowthBytes} bytes; the statement was rolled back`,
            {
              cause: e,
              hint:
                'write less per statement, delete old rows first, or have the owner raise ' +
                'limits.max_sql_growth_bytes',
            },
          );
        }
        if (e instanceof TrustError) throw e;
        throw new TrustError('SQL_FAILED', `SQLite refused the statement: ${(e as Error).message}`, { cause: e });
      }
    },
    checkpoint() {
      // SQLite's auto-checkpoint copies pages back but never shrinks the WAL; after a big write
      // the WAL is truncated here. busy_timeout 0: a reader in the host never makes this wait.
      if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) <= WAL_TRUNCATE_BYTES) return;
      // PASSIVE copies the frames back without the writer lock (host writes go on meanwhile);
      // TRUNCATE then holds that lock only for the few frames written since, and the truncation.
      // An interrupted checkpoint (the host stopped this write) leaves the WAL for the next write.
      busyLowered = true;
      try {
        rw.pragma('busy_timeout = 0');
        rw.pragma('wal_checkpoint(PASSIVE)');
        rw.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        /* busy or interrupted: the next write retries */
      }
      try {
        rw.pragma('busy_timeout = 2000');
        busyLowered = false;
      } catch {
        /* interrupted: restored before the next write */
      }
    },
    close() {
      statements.clear();
      verdicts.clear();
      if (ro.open) ro.close();
      if (rw.open) rw.close();
    },
  };
}
