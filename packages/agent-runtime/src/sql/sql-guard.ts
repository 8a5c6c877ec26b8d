import Database from 'better-sqlite3';
import { TrustError, allow, deniedError, deny, isDenied, type Decision } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import { analyzeStatement, buildRootMap, leadingVerb, type RootMap, type StatementAnalysis } from './statement-analysis.js';
import { evaluateSqlAccess, readable, type SqlMode, type TableProtection } from './sql-policy.js';

/** Result of a db_query. */
export interface QueryResult { readonly columns: string[]; readonly rows: Record<string, unknown>[]; readonly truncated: boolean }
/** Result of a db_execute. */
export interface ExecuteResult { readonly changes: number; readonly lastInsertRowid: number }

export interface SqlGuardOptions {
  /** Row cap for queries; defaults to `limits.max_sql_rows`. */
  readonly maxRows?: number;
  /** Time cap for queries, checked between rows; defaults to `limits.sql_timeout_ms`. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** SQL access control for agent SQL, decided from the compiled statement. */
export interface SqlGuard {
  checkQuery(sql: string, params?: unknown[]): Decision;
  checkExecute(sql: string, options?: { authorized?: boolean; params?: unknown[] }): Decision;
  runQuery(sql: string, params?: unknown[]): QueryResult;
  runExecute(sql: string, options?: { authorized?: boolean; params?: unknown[] }): ExecuteResult;
  close(): void;
}

interface SchemaRow { type: string; name: string; tbl_name: string; sql: string | null }
const CACHE_MAX = 512;

/**
 * Creates the guard. `db_query` runs on a second, read-only connection with `query_only`; both
 * connections have `trusted_schema=OFF`. A verdict is cached by statement text and schema version.
 *
 * @example
 * const sql = createSqlGuard(adf);
 * sql.checkQuery('select * from [adf_identity]'); // { allow: false, code: 'SQL_TABLE_DENIED', … }
 */
export function createSqlGuard(adf: AdfFile, options: SqlGuardOptions = {}): SqlGuard {
  const rw = adf.db;
  const ro = new Database(adf.path, { readonly: true, fileMustExist: true });
  ro.pragma('trusted_schema = OFF');
  ro.pragma('query_only = ON');
  ro.pragma('busy_timeout = 2000');
  const now = options.now ?? (() => performance.now());
  const conns = { query: ro, execute: rw } as const;
  const versionStmt = { query: ro.prepare('PRAGMA schema_version').pluck(), execute: rw.prepare('PRAGMA schema_version').pluck() };
  const roots = { query: { v: -1, map: new Map() as RootMap }, execute: { v: -1, map: new Map() as RootMap } };
  const verdicts = new Map<string, { analysis: StatementAnalysis | undefined; decision: Decision }>();
  // On the read-only connection `data_version` moves whenever any other connection commits (schema
  // changes and config writes included). While it stays put, the schema version and the limits read
  // last time are still current, so the hot path costs one pragma instead of three.
  const roDataVersion = ro.prepare('PRAGMA data_version').pluck();
  let roState: { dv: unknown; version: number; limits: { maxRows: number; timeout: number } } | undefined;
  const queryState = () => {
    const dv = roDataVersion.get();
    if (roState && roState.dv === dv) return roState;
    const limits = adf.config().limits;
    roState = { dv, version: versionStmt.query.get() as number, limits: { maxRows: options.maxRows ?? limits.max_sql_rows, timeout: options.timeoutMs ?? limits.sql_timeout_ms } };
    return roState;
  };
  const statements = new Map<string, Database.Statement>();

  function protections(): Record<string, TableProtection> {
    return adf.config().security.table_protections as Record<string, TableProtection>;
  }

  function analyze(mode: SqlMode, sql: string, params: unknown[], authorized: boolean, knownVersion?: number): { analysis: StatementAnalysis | undefined; decision: Decision; version: number } {
    const db = conns[mode];
    const version = knownVersion ?? (mode === 'query' ? queryState().version : (versionStmt.execute.get() as number));
    const prot = mode === 'execute' ? JSON.stringify(protections()) : '';
    const key = `${mode}\0${version}\0${authorized ? 1 : 0}\0${prot}\0${sql}`;
    const hit = verdicts.get(key);
    if (hit) return { ...hit, version };
    const r = roots[mode];
    if (r.v !== version) { r.map = buildRootMap(db); r.v = version; }
    let result: { analysis: StatementAnalysis | undefined; decision: Decision };
    const verb = leadingVerb(sql);
    if (verb === 'EXPLAIN' || verb === 'PRAGMA' || verb === 'ATTACH' || verb === 'DETACH') {
      result = { analysis: undefined, decision: deny('SQL_VERB_DENIED', `${verb} is not allowed`, { rule: 'sql-verb' }) };
    } else {
      try {
        db.prepare(sql); // rejects more than one statement and syntax errors, without running anything
        const analysis = analyzeStatement(db, sql, r.map, params);
        result = { analysis, decision: evaluateSqlAccess(analysis, mode, protections(), authorized) };
      } catch (e) {
        const msg = (e as Error).message;
        result = /more than one statement/.test(msg)
          ? { analysis: undefined, decision: deny('SQL_MULTIPLE_STATEMENTS', 'only one statement per call is allowed', { rule: 'sql-single', hint: 'send each statement separately' }) }
          : { analysis: undefined, decision: deny('SQL_INVALID', `SQLite rejected the statement: ${msg}`, { rule: 'sql-compile' }) };
      }
    }
    if (verdicts.size >= CACHE_MAX) verdicts.clear();
    verdicts.set(key, result);
    return { ...result, version };
  }

  function snapshot(): SchemaRow[] {
    return rw.prepare('SELECT type, name, tbl_name, sql FROM main.sqlite_schema ORDER BY type, name').all() as SchemaRow[];
  }

  /** After a DDL statement ran inside a savepoint: is every created, changed or dropped object local and safe? */
  function checkSchemaDiff(before: SchemaRow[], after: SchemaRow[], authorized: boolean): Decision {
    const key = (r: SchemaRow) => `${r.type}\0${r.name}`;
    const b = new Map(before.map((r) => [key(r), r]));
    const a = new Map(after.map((r) => [key(r), r]));
    const changed = [...after.filter((r) => b.get(key(r))?.sql !== r.sql || !b.has(key(r))), ...before.filter((r) => !a.has(key(r)))];
    const prot = protections();
    const map = buildRootMap(rw);
    for (const r of changed) {
      const name = r.name.toLowerCase();
      const tbl = r.tbl_name.toLowerCase();
      const local = (name.startsWith('local_') || name.startsWith('sqlite_autoindex_local_')) && tbl.startsWith('local_');
      if (!local) return deny('SQL_DDL_DENIED', `db_execute may only create, change or drop local_* objects, not ${r.type} ${r.name}`, { rule: 'sql-ddl' });
      if (!a.has(key(r)) || b.has(key(r))) {
        const p = prot[tbl] ?? 'none';
        if (p !== 'none' && !authorized) return deny(p === 'authorized' ? 'SQL_REQUIRES_AUTHORIZED' : 'SQL_APPEND_ONLY', `${tbl} is protected (${p}); its schema cannot be changed or dropped`, { rule: 'table-protection' });
      }
      if (!a.has(key(r))) continue;
      const sql = r.sql ?? '';
      if (r.type === 'table' && /\bAUTOINCREMENT\b/i.test(sql)) return deny('SQL_DDL_DENIED', 'AUTOINCREMENT is not supported in local_* tables (it writes the shared sqlite_sequence)', { rule: 'sql-ddl', hint: 'use INTEGER PRIMARY KEY without AUTOINCREMENT' });
      if (r.type === 'table' && /^\s*CREATE\s+VIRTUAL\b/i.test(sql)) return deny('SQL_VIRTUAL_TABLE', 'virtual tables are not supported', { rule: 'sql-ddl' });
      if ((r.type === 'view' || r.type === 'trigger') && /adf_/i.test(sql)) return deny(r.type === 'view' ? 'SQL_VIEW_PROTECTED' : 'SQL_TRIGGER_PROTECTED', `${r.type} ${r.name} refers to adf_* tables`, { rule: 'sql-ddl' });
      if (r.type === 'view') {
        const v = analyzeStatement(rw, `SELECT * FROM "${r.name.replace(/"/g, '""')}"`, map);
        const bad = v.hard[0] ?? [...v.reads].filter((t) => !readable(t)).map((t) => ({ code: 'SQL_VIEW_PROTECTED', reason: `view ${r.name} reads ${t}` }))[0];
        if (bad) return deny('SQL_VIEW_PROTECTED', bad.reason, { rule: 'sql-view' });
      }
      if (r.type === 'trigger') {
        for (const probe of triggerProbes(r.tbl_name)) {
          let t: StatementAnalysis;
          try { t = analyzeStatement(rw, probe, map); } catch { continue; }
          const d = evaluateSqlAccess({ ...t, verb: 'INSERT' }, 'execute', prot, authorized);
          if (isDenied(d)) return deny('SQL_TRIGGER_PROTECTED', `trigger ${r.name} would ${d.reason}`, { rule: 'sql-trigger' });
        }
      }
    }
    return allow('sql-ddl');
  }

  function triggerProbes(table: string): string[] {
    const q = `"${table.replace(/"/g, '""')}"`;
    const cols = (rw.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]).map((c) => `"${c.replace(/"/g, '""')}"`);
    const probes = [`INSERT INTO ${q} DEFAULT VALUES`, `DELETE FROM ${q} WHERE 1`];
    if (cols.length > 0) probes.push(`UPDATE ${q} SET ${cols.map((c) => `${c} = ${c}`).join(', ')}`);
    return probes;
  }

  const guard: SqlGuard = {
    checkQuery: (sql, params = []) => analyze('query', sql, params, false).decision,
    checkExecute: (sql, o = {}) => analyze('execute', sql, o.params ?? [], o.authorized === true).decision,
    runQuery(sql, params = []) {
      const state = queryState(); // one pragma per query on the hot path
      const { decision, version } = analyze('query', sql, params, false, state.version);
      if (isDenied(decision)) throw deniedError(decision);
      const skey = `${version}\0${sql}`;
      let stmt = statements.get(skey);
      if (!stmt) {
        if (statements.size >= CACHE_MAX) statements.clear();
        stmt = ro.prepare(sql);
        statements.set(skey, stmt);
      }
      const { maxRows, timeout } = state.limits;
      const start = now();
      const rows: Record<string, unknown>[] = [];
      let truncated = false;
      const it = stmt.iterate(...(params as never[])) as IterableIterator<Record<string, unknown>>;
      try {
        for (const row of it) {
          if (rows.length >= maxRows) { truncated = true; break; }
          rows.push(row);
          if ((rows.length & 63) === 0 && now() - start > timeout) throw new TrustError('SQL_TIMEOUT', `db_query exceeded ${timeout} ms`, { hint: 'narrow the query or add LIMIT' });
        }
      } finally {
        it.return?.();
      }
      if (now() - start > timeout) throw new TrustError('SQL_TIMEOUT', `db_query exceeded ${timeout} ms`, { hint: 'narrow the query or add LIMIT' });
      return { columns: stmt.columns().map((c) => c.name), rows, truncated };
    },
    runExecute(sql, o = {}) {
      const authorized = o.authorized === true;
      const params = o.params ?? [];
      const { analysis, decision } = analyze('execute', sql, params, authorized);
      if (isDenied(decision)) throw deniedError(decision);
      const run = rw.transaction(() => {
        const before = analysis?.ddl ? snapshot() : undefined;
        const r = rw.prepare(sql).run(...(params as never[]));
        if (before) {
          const d = checkSchemaDiff(before, snapshot(), authorized);
          if (isDenied(d)) throw deniedError(d); // rolls the whole statement back
        }
        return { changes: r.changes, lastInsertRowid: Number(r.lastInsertRowid) };
      });
      return run.immediate();
    },
    close() { statements.clear(); verdicts.clear(); if (ro.open) ro.close(); },
  };
  return guard;
}
