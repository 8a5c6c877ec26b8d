import type Database from 'better-sqlite3';
import { TrustError } from '@trust/core';
import { analyzeStatement, buildRootMap, type RootMap } from '../sql/statement-analysis.js';
import { ADF_INDEXES, ADF_READABLE_TABLES, ADF_SCHEMA_VERSION, ADF_TABLES } from './schema.js';
import {
  isLocalAutoIndex,
  isSqliteInternalTable,
  referenceSchema,
  sameObject,
  type SchemaRow,
} from './schema-reference.js';

/** One finding of the schema audit. */
export interface SchemaFinding {
  readonly code: string;
  readonly message: string;
  readonly object?: string;
}

/** More schema objects than any agent makes: the audit refuses the file rather than walk them all. */
const MAX_SCHEMA_ROWS = 2000;
const TYPES = new Set(['table', 'index', 'view', 'trigger']);
const readable = new Set(ADF_READABLE_TABLES);
const quote = (n: string) => `"${n.replace(/"/g, '""')}"`;
const isLocal = (t: string) => t.startsWith('local_');

/**
 * Audits **every** row of a file's `sqlite_schema`, whatever its name or case, against what this
 * runtime and SQLite create. Allowed: trust's own `adf_*` tables and indexes exactly as its DDL
 * makes them (with the automatic indexes and `sqlite_sequence` SQLite adds); the agent's own
 * `local_*` tables, their indexes, triggers whose compiled programs touch only `local_*` tables,
 * and views that read only what agent SQL may read; SQLite's `sqlite_sequence` and
 * `sqlite_stat1`–`4` in exactly SQLite's shape. Anything else is `ADF_SCHEMA_TAMPERED`, naming it.
 *
 * Besides the rows, it checks what SQLite actually loaded (names from the SQL text, which a
 * planted row can make differ from its `name` column) and compiles, never runs, a write on every
 * table: no trigger or foreign-key action may fire on a write to anything but the agent's tables.
 * Read-only. Errors of SQLite itself propagate (the caller maps them to `ADF_*` codes).
 */
export function auditAdfSchema(db: Database.Database): { version: number } {
  const rows = db
    .prepare('SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_schema LIMIT ?')
    .all(MAX_SCHEMA_ROWS + 1) as SchemaRow[];
  if (rows.length > MAX_SCHEMA_ROWS)
    throw tampered([{ code: 'too-many', message: `more than ${MAX_SCHEMA_ROWS} schema objects` }]);
  if (!rows.some((r) => r.type === 'table' && r.name === 'adf_meta'))
    throw new TrustError('ADF_NOT_ADF', 'the file is SQLite but has no adf_meta table', {
      hint: 'this is not an .adf file',
    });
  const version = schemaVersionOf(db);
  const reference = referenceSchema(version);
  const findings: SchemaFinding[] = [];
  const add = (code: string, object: string, message: string) => findings.push({ code, object, message });

  for (const [name, ref] of reference) {
    const row = rows.find((r) => r.name === name);
    if (!row) add('missing', name, `${ref.type} ${name} is missing`);
    else if (!sameObject(row, ref)) add('changed', name, `${ref.type} ${name} differs from the runtime's definition`);
  }
  const localTables = new Set(rows.filter((r) => r.type === 'table' && isLocal(r.name)).map((r) => r.name));
  const localViews = new Set(rows.filter((r) => r.type === 'view' && isLocal(r.name)).map((r) => r.name));
  for (const r of rows) {
    if (reference.has(r.name)) continue;
    const problem = classifyRow(r, localTables, localViews);
    if (problem) add(r.type, r.name, problem);
  }
  checkRootPages(rows, add);
  if (findings.length === 0) checkLoaded(db, rows, add);
  // The behaviour checks trust the root-page map, so only a file whose rows passed gets them.
  if (findings.length === 0) checkBehaviour(db, buildRootMap(db), add);
  if (findings.length > 0) throw tampered(findings);
  return { version };
}

function schemaVersionOf(db: Database.Database): number {
  const versionText = db.prepare("SELECT value FROM adf_meta WHERE key = 'adf_schema_version'").pluck().get() as
    | string
    | undefined;
  const version = Number(versionText);
  if (!Number.isInteger(version) || version < 1)
    throw new TrustError('ADF_SCHEMA_TAMPERED', `adf_schema_version is "${String(versionText).slice(0, 40)}"`, {
      hint: 'the file was not written by a trust runtime',
    });
  if (version > ADF_SCHEMA_VERSION)
    throw new TrustError(
      'ADF_TOO_NEW',
      `the file has schema version ${version}; this runtime reads up to ${ADF_SCHEMA_VERSION}`,
      { hint: 'upgrade the runtime' },
    );
  return version;
}

/** Why `r` (not one of trust's own objects) may not be in the file, or undefined when it may. */
function classifyRow(r: SchemaRow, localTables: Set<string>, localViews: Set<string>): string | undefined {
  const what = `${r.type} ${JSON.stringify(r.name)}`;
  if (!TYPES.has(r.type)) return `schema row ${JSON.stringify(r.name)} has unknown type ${JSON.stringify(r.type)}`;
  const sql = r.sql ?? '';
  if (r.name.toLowerCase().startsWith('sqlite_')) {
    if (isSqliteInternalTable(r) || isLocalAutoIndex(r, localTables)) return undefined;
    return `${what} uses SQLite's reserved sqlite_ prefix but is not an object SQLite creates`;
  }
  if (!isLocal(r.name)) return `${what} is neither one of trust's objects nor the agent's own (local_*)`;
  switch (r.type) {
    case 'table':
      if (/^\s*CREATE\s+VIRTUAL\b/i.test(sql)) return `virtual table ${r.name} is not supported`;
      if (r.tbl_name !== r.name || !/^CREATE TABLE /.test(sql)) return `${what} is not a plain table definition`;
      return undefined;
    case 'index':
      if (!localTables.has(r.tbl_name)) return `${what} is on ${JSON.stringify(r.tbl_name)}, not a local_* table`;
      if (!/^CREATE (?:UNIQUE )?INDEX /.test(sql)) return `${what} is not an index definition`;
      return undefined;
    case 'view':
      if (r.tbl_name !== r.name || !/^CREATE VIEW /.test(sql)) return `${what} is not a view definition`;
      return undefined;
    default:
      if (!localTables.has(r.tbl_name) && !localViews.has(r.tbl_name))
        return `${what} is on ${JSON.stringify(r.tbl_name)}, not a local_* table`;
      if (!/^CREATE TRIGGER /.test(sql)) return `${what} is not a trigger definition`;
      return undefined;
  }
}

/** Tables and indexes own distinct pages; views and triggers own none. */
function checkRootPages(rows: readonly SchemaRow[], add: (c: string, o: string, m: string) => void): void {
  const seen = new Map<number, string>();
  for (const r of rows) {
    const page = r.rootpage ?? 0;
    const virtual = r.type === 'table' && /^\s*CREATE\s+VIRTUAL\b/i.test(r.sql ?? '');
    const needsPage = (r.type === 'table' && !virtual) || r.type === 'index';
    if (needsPage !== page > 0) add('rootpage', r.name, `${r.type} ${r.name} has root page ${page}`);
    if (page > 0) {
      const other = seen.get(page);
      if (other !== undefined) add('rootpage', r.name, `${r.name} shares root page ${page} with ${other}`);
      seen.set(page, r.name);
    }
  }
}

/**
 * SQLite names an object after its SQL text, not the row's `name`/`tbl_name` columns: compare
 * what it loaded (tables, views, and each table's indexes) with the rows.
 */
function checkLoaded(
  db: Database.Database,
  rows: readonly SchemaRow[],
  add: (c: string, o: string, m: string) => void,
): void {
  const key = (type: string, name: string) => `${type}:${name.toLowerCase()}`;
  const loaded = db
    .prepare("SELECT type, name FROM pragma_table_list WHERE schema = 'main' AND name <> 'sqlite_schema'")
    .all() as Array<{ type: string; name: string }>;
  const want = new Set(rows.filter((r) => r.type === 'table' || r.type === 'view').map((r) => key(r.type, r.name)));
  const got = new Set(loaded.map((l) => key(l.type, l.name)));
  for (const k of got) if (!want.has(k)) add('loaded', k, `SQLite loaded ${k.replace(':', ' ')}, which no row names`);
  for (const k of want) if (!got.has(k)) add('loaded', k, `${k.replace(':', ' ')} is defined under another name`);
  const indexList = db.prepare('SELECT name FROM pragma_index_list(?)').pluck();
  for (const t of loaded.filter((l) => l.type === 'table')) {
    const names = new Set((indexList.all(t.name) as string[]).map((n) => n.toLowerCase()));
    const rowsFor = rows.filter((r) => r.type === 'index' && r.tbl_name.toLowerCase() === t.name.toLowerCase());
    const expected = new Set(rowsFor.map((r) => r.name.toLowerCase()));
    for (const n of names) if (!expected.has(n)) add('loaded', n, `index ${n} is on ${t.name}, not where its row says`);
    for (const n of expected) if (!names.has(n)) add('loaded', n, `index ${n} is not on ${t.name} as its row says`);
  }
}

/**
 * Compiles (EXPLAIN, never runs) an INSERT, UPDATE and DELETE on every table and view. On trust's
 * and SQLite's tables nothing may be attached (no trigger, no foreign-key action); on the agent's
 * own tables what the triggers do may touch only `local_*` tables (and read what agent SQL may).
 * Each local view may read only what agent SQL may read.
 */
function checkBehaviour(db: Database.Database, roots: RootMap, add: (c: string, o: string, m: string) => void): void {
  const loaded = db
    .prepare("SELECT type, name FROM pragma_table_list WHERE schema = 'main' AND name <> 'sqlite_schema'")
    .all() as Array<{ type: string; name: string }>;
  const mayRead = (t: string) => isLocal(t) || readable.has(t) || t === 'sqlite_schema' || t === 'sqlite_sequence';
  const mayWrite = (t: string) => isLocal(t) || t === 'sqlite_sequence';
  for (const o of loaded) {
    if (o.type === 'view') {
      let a: ReturnType<typeof analyzeStatement>;
      try {
        a = analyzeStatement(db, `SELECT * FROM ${quote(o.name)}`, roots);
      } catch (e) {
        add('view', o.name, `view ${o.name} does not compile (${(e as Error).message})`);
        continue;
      }
      const bad = a.hard[0]?.reason ?? [...a.reads].find((t) => !mayRead(t));
      if (bad || a.writes.size > 0) add('view', o.name, `view ${o.name} ${bad ? `reads ${bad}` : 'writes'}`);
    }
    for (const probe of writeProbes(db, o.name)) {
      if (!isLocal(o.name)) {
        let ops: Array<{ opcode: string }>;
        try {
          ops = db.prepare(`EXPLAIN ${probe}`).all() as Array<{ opcode: string }>;
        } catch (e) {
          if (o.type === 'view') continue;
          add('behaviour', o.name, `a write to ${o.name} does not compile (${(e as Error).message})`);
          break;
        }
        const attached = ops.find((op) => op.opcode === 'Program' || op.opcode.startsWith('Fk'));
        if (attached) {
          add('behaviour', o.name, `a trigger or foreign key runs when ${o.name} is written`);
          break;
        }
        continue;
      }
      let a: ReturnType<typeof analyzeStatement>;
      try {
        a = analyzeStatement(db, probe, roots);
      } catch (e) {
        if (o.type === 'view') continue; // a view accepts only the writes it has INSTEAD OF triggers for
        add('trigger', o.name, `a write to ${o.name} could not be verified (${(e as Error).message})`);
        break;
      }
      const bad =
        a.hard[0]?.reason ??
        (a.ddl ? 'changes the schema' : undefined) ??
        [...a.writes, ...a.mutates].find((t) => !mayWrite(t)) ??
        [...a.reads].find((t) => !mayRead(t));
      if (bad) {
        add('trigger', o.name, `a trigger on ${o.name} reaches ${bad}`);
        break;
      }
    }
  }
}

function writeProbes(db: Database.Database, table: string): string[] {
  const q = quote(table);
  const cols = (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]).map(quote);
  const probes = [`INSERT INTO ${q} DEFAULT VALUES`, `DELETE FROM ${q} WHERE 1`];
  if (cols.length > 0) probes.push(`UPDATE ${q} SET ${cols.map((c) => `${c} = ${c}`).join(', ')}`);
  return probes;
}

function tampered(findings: readonly SchemaFinding[]): TrustError {
  const shown = findings.slice(0, 20);
  return new TrustError(
    'ADF_SCHEMA_TAMPERED',
    `the file's schema was changed outside the runtime: ${shown.map((f) => f.message).join('; ')}` +
      (findings.length > shown.length ? `; and ${findings.length - shown.length} more` : ''),
    {
      problems: shown.map((f) => ({
        code: 'ADF_SCHEMA_TAMPERED',
        message: f.message,
        ...(f.object ? { path: f.object } : {}),
      })),
      hint: 'do not run this file; if you trust it, export its data into a fresh file with createAdf',
    },
  );
}

export { ADF_INDEXES, ADF_TABLES };
