import { allow, deny, type Decision } from '@trust/core';
import { ADF_READABLE_TABLES } from '../adf/schema.js';
import type { StatementAnalysis } from './statement-analysis.js';

export type SqlMode = 'query' | 'execute';
export type TableProtection = 'none' | 'append_only' | 'authorized';

/** Leading keywords per mode. Everything else (PRAGMA, ATTACH, VACUUM, BEGIN, …) is refused. */
export const QUERY_VERBS: readonly string[] = Object.freeze(['SELECT', 'WITH', 'VALUES']);
export const EXECUTE_VERBS: readonly string[] = Object.freeze([
  'INSERT',
  'REPLACE',
  'UPDATE',
  'DELETE',
  'CREATE',
  'DROP',
  'ALTER',
  'WITH',
]);

const isLocal = (t: string) => t.startsWith('local_');

/**
 * May this table be read by agent SQL? The eight adf_* log/state tables, local_*, the schema and
 * sqlite_sequence (counters only).
 */
export function readable(table: string): boolean {
  return (
    isLocal(table) || ADF_READABLE_TABLES.includes(table) || table === 'sqlite_schema' || table === 'sqlite_sequence'
  );
}

/**
 * The rules on what a statement touches (not on its text), in order:
 * hard denials, verb, reads, writes (execute: local_* only; query: none), table protections.
 * DDL statements are allowed here only provisionally: the guard then checks the schema diff.
 */
export function evaluateSqlAccess(
  a: StatementAnalysis,
  mode: SqlMode,
  protections: Readonly<Record<string, TableProtection>>,
  authorized: boolean,
): Decision {
  const verbs = mode === 'query' ? QUERY_VERBS : EXECUTE_VERBS;
  if (!verbs.includes(a.verb)) {
    return deny(
      'SQL_VERB_DENIED',
      `${a.verb || 'this statement'} is not allowed in ${mode === 'query' ? 'db_query' : 'db_execute'}`,
      {
        rule: 'sql-verb',
        hint:
          mode === 'query'
            ? 'db_query runs SELECT/WITH/VALUES; use db_execute to write local_* tables'
            : 'db_execute runs INSERT/UPDATE/DELETE/CREATE/DROP/ALTER on local_* tables',
      },
    );
  }
  const first = a.hard[0];
  if (first) return deny(first.code, first.reason, { rule: 'sql-bytecode' });
  for (const t of a.reads) {
    if (!readable(t))
      return deny('SQL_TABLE_DENIED', `reading ${t} is not allowed`, {
        rule: 'sql-read',
        hint:
          'agent SQL may read local_* and adf_loop, adf_inbox, adf_outbox, adf_files, adf_timers, adf_audit, ' +
          'adf_logs, adf_tasks',
      });
  }
  if (mode === 'query') {
    if (a.writes.size > 0 || a.ddl)
      return deny('SQL_WRITE_DENIED', 'db_query is read-only', {
        rule: 'sql-query-readonly',
        hint: 'use db_execute on local_* tables',
      });
    return allow('sql-query');
  }
  for (const t of a.writes) {
    if (t === 'sqlite_schema' && a.ddl) continue;
    // AUTOINCREMENT on local_* tables (and ALTER … RENAME, DROP of them) writes sqlite_sequence;
    // the engine checks the rows themselves: a change to a counter that is not a local_* table's
    // rolls the statement back (SQL_WRITE_DENIED).
    if (t === 'sqlite_sequence') continue;
    if (!isLocal(t))
      return deny('SQL_WRITE_DENIED', `writing ${t} is not allowed; db_execute writes only local_* tables`, {
        rule: 'sql-write',
      });
  }
  for (const t of new Set([...a.writes, ...a.mutates])) {
    const p = protections[t] ?? 'none';
    if (p === 'authorized' && !authorized)
      return deny('SQL_REQUIRES_AUTHORIZED', `${t} is protected: only authorized code may write it`, {
        rule: 'table-protection',
      });
    if (p === 'append_only' && a.mutates.has(t) && !authorized)
      return deny('SQL_APPEND_ONLY', `${t} is append_only: rows may be inserted, never changed or deleted`, {
        rule: 'table-protection',
      });
  }
  if (a.ddl) return allow('sql-ddl-provisional');
  return allow(a.writes.has('sqlite_sequence') ? 'sql-sequence-provisional' : 'sql-execute');
}
