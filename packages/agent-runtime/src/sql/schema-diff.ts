import type Database from 'better-sqlite3';
import { allow, deny, isDenied, type Decision } from '@trust/core';
import { analyzeStatement, buildRootMap, type RootMap, type StatementAnalysis } from './statement-analysis.js';
import { evaluateSqlAccess, type TableProtection } from './sql-policy.js';

/** One row of `sqlite_schema`. */
export interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

export function schemaSnapshot(db: Database.Database): SchemaRow[] {
  return db
    .prepare('SELECT type, name, tbl_name, sql FROM main.sqlite_schema ORDER BY type, name')
    .all() as SchemaRow[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const touchesAdf = (a: StatementAnalysis) => [...a.reads, ...a.writes].find((t) => t.startsWith('adf_'));

/**
 * After a DDL statement ran inside a transaction: is every created, changed or dropped object
 * local and safe? Views and triggers are judged by what their compiled programs touch (a view by
 * compiling `SELECT * FROM view`, a trigger by compiling the writes that fire it), never by the
 * text of their SQL: `local_adf_copy` or a literal 'adf_x' is fine, a read of adf_loop is not.
 */
export function checkSchemaDiff(
  db: Database.Database,
  before: SchemaRow[],
  after: SchemaRow[],
  prot: Readonly<Record<string, TableProtection>>,
  authorized: boolean,
): Decision {
  const key = (r: SchemaRow) => `${r.type}\0${r.name}`;
  const b = new Map(before.map((r) => [key(r), r]));
  const a = new Map(after.map((r) => [key(r), r]));
  const changed = [
    ...after.filter((r) => b.get(key(r))?.sql !== r.sql || !b.has(key(r))),
    ...before.filter((r) => !a.has(key(r))),
  ];
  if (changed.length === 0) return allow('sql-ddl');
  const map = buildRootMap(db);
  for (const r of changed) {
    const name = r.name.toLowerCase();
    const tbl = r.tbl_name.toLowerCase();
    const local = (name.startsWith('local_') || name.startsWith('sqlite_autoindex_local_')) && tbl.startsWith('local_');
    if (!local)
      return deny(
        'SQL_DDL_DENIED',
        `db_execute may only create, change or drop local_* objects, not ${r.type} ${r.name}`,
        { rule: 'sql-ddl' },
      );
    if (!a.has(key(r)) || b.has(key(r))) {
      const p = prot[tbl] ?? 'none';
      if (p !== 'none' && !authorized)
        return deny(
          p === 'authorized' ? 'SQL_REQUIRES_AUTHORIZED' : 'SQL_APPEND_ONLY',
          `${tbl} is protected (${p}); its schema cannot be changed or dropped`,
          { rule: 'table-protection' },
        );
    }
    if (!a.has(key(r))) continue;
    const sql = r.sql ?? '';
    if (r.type === 'table' && /^\s*CREATE\s+VIRTUAL\b/i.test(sql))
      return deny('SQL_VIRTUAL_TABLE', 'virtual tables are not supported', { rule: 'sql-ddl' });
    if (r.type === 'view' || r.type === 'trigger') {
      const d = checkViewOrTrigger(db, r, map, prot, authorized);
      if (isDenied(d)) return d;
    }
  }
  return allow('sql-ddl');
}

/**
 * What a view's or trigger's compiled programs touch: a view through `SELECT * FROM view`, a
 * trigger through the writes that fire it.
 */
export type SchemaObjectAnalysis =
  | { readonly kind: 'ok'; readonly analyses: readonly StatementAnalysis[] }
  | { readonly kind: 'unverifiable'; readonly reason: string };

/**
 * Compiles (never runs) the statements that reach a view or trigger. Fails closed: a view that does
 * not compile, or a trigger on a table where a probing write does not compile, is `unverifiable`.
 */
export function analyzeSchemaObject(db: Database.Database, r: SchemaRow, map: RootMap): SchemaObjectAnalysis {
  if (r.type === 'view') {
    try {
      return { kind: 'ok', analyses: [analyzeStatement(db, `SELECT * FROM ${quote(r.name)}`, map)] };
    } catch (e) {
      return { kind: 'unverifiable', reason: `view ${r.name} does not compile (${(e as Error).message})` };
    }
  }
  const isView =
    (db
      .prepare("SELECT type FROM main.sqlite_schema WHERE name = ? AND type IN ('table','view')")
      .pluck()
      .get(r.tbl_name) as string | undefined) === 'view';
  const analyses: StatementAnalysis[] = [];
  for (const probe of triggerProbes(db, r.tbl_name)) {
    // A probe on a view compiles only for the operations it has INSTEAD OF triggers for.
    try {
      analyses.push(analyzeStatement(db, probe, map));
    } catch (e) {
      if (!isView)
        return { kind: 'unverifiable', reason: `trigger ${r.name} could not be verified (${(e as Error).message})` };
    }
  }
  return analyses.length > 0
    ? { kind: 'ok', analyses }
    : { kind: 'unverifiable', reason: `trigger ${r.name} could not be verified: no write on ${r.tbl_name} compiles` };
}

/** The first adf_* table a view or trigger touches, by its compiled programs (never its text). */
export function adfTableTouchedBy(o: SchemaObjectAnalysis): string | undefined {
  if (o.kind !== 'ok') return undefined;
  for (const a of o.analyses) {
    const t = touchesAdf(a);
    if (t) return t;
  }
  return undefined;
}

function checkViewOrTrigger(
  db: Database.Database,
  r: SchemaRow,
  map: RootMap,
  prot: Readonly<Record<string, TableProtection>>,
  authorized: boolean,
): Decision {
  const code = r.type === 'view' ? 'SQL_VIEW_PROTECTED' : 'SQL_TRIGGER_PROTECTED';
  const rule = r.type === 'view' ? 'sql-view' : 'sql-trigger';
  const o = analyzeSchemaObject(db, r, map);
  if (o.kind !== 'ok') return deny(code, o.reason, { rule });
  const adf = adfTableTouchedBy(o);
  if (adf)
    return deny(code, `${r.type} ${r.name} touches ${adf}; views and triggers may only touch local_* tables`, {
      rule,
      hint: 'query adf_* tables directly with db_query',
    });
  for (const a of o.analyses) {
    if (r.type === 'view') {
      const bad =
        a.hard[0] ??
        [...a.reads]
          .filter((t) => !t.startsWith('local_') && t !== 'sqlite_schema')
          .map((t) => ({ code, reason: `view ${r.name} reads ${t}` }))[0];
      if (bad) return deny(code, bad.reason, { rule });
    } else {
      const d = evaluateSqlAccess({ ...a, verb: 'INSERT' }, 'execute', prot, authorized);
      if (isDenied(d)) return deny(code, `trigger ${r.name} would ${d.reason}`, { rule });
    }
  }
  return allow(rule);
}

function triggerProbes(db: Database.Database, table: string): string[] {
  const q = quote(table);
  const cols = (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]).map(quote);
  const probes = [`INSERT INTO ${q} DEFAULT VALUES`, `DELETE FROM ${q} WHERE 1`];
  if (cols.length > 0) probes.push(`UPDATE ${q} SET ${cols.map((c) => `${c} = ${c}`).join(', ')}`);
  return probes;
}
