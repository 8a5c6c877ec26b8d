import Database from 'better-sqlite3';
import { normalizeDdl, schemaStatements } from './schema.js';

/** Makes SQLite create `sqlite_sequence` now (it does at the first AUTOINCREMENT insert), leaving no row behind. */
export const CREATE_SQLITE_SEQUENCE =
  "INSERT INTO adf_logs (level, message, created_at) VALUES ('info', '', ''); " +
  'DELETE FROM adf_logs; DELETE FROM sqlite_sequence';

/** One row of `sqlite_schema`, as the audit reads it. */
export interface SchemaRow {
  readonly type: string;
  readonly name: string;
  readonly tbl_name: string;
  readonly rootpage: number | null;
  readonly sql: string | null;
}

/**
 * The exact rows SQLite itself creates for its statistics and AUTOINCREMENT bookkeeping. Only
 * these `sqlite_*` tables may exist, each with exactly this definition (how SQLite writes it).
 */
const SQLITE_INTERNAL_TABLES: ReadonlyMap<string, string> = new Map([
  ['sqlite_sequence', 'CREATE TABLE sqlite_sequence(name,seq)'],
  ['sqlite_stat1', 'CREATE TABLE sqlite_stat1(tbl,idx,stat)'],
  ['sqlite_stat2', 'CREATE TABLE sqlite_stat2(tbl,idx,sampleno,sample)'],
  ['sqlite_stat3', 'CREATE TABLE sqlite_stat3(tbl,idx,neq,nlt,ndlt,sample)'],
  ['sqlite_stat4', 'CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)'],
]);

/**
 * The rows a file of `version` has when this runtime made it: trust's tables and indexes plus the
 * automatic indexes and `sqlite_sequence` SQLite adds for them. Built by running the DDL in a
 * private in-memory database, so the shapes are SQLite's own, never hand-copied.
 */
export function referenceSchema(version: number): Map<string, SchemaRow> {
  const mem = new Database(':memory:');
  try {
    for (const sql of schemaStatements(version)) mem.exec(sql);
    // AUTOINCREMENT tables get sqlite_sequence on their first insert; make it exist now.
    mem.exec(CREATE_SQLITE_SEQUENCE);
    const rows = mem.prepare('SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema').all() as SchemaRow[];
    return new Map(rows.filter((r) => r.name !== 'sqlite_sequence').map((r) => [r.name, r]));
  } finally {
    mem.close();
  }
}

/** Whether `r` is one of SQLite's own statistics/sequence tables, in exactly SQLite's shape. */
export function isSqliteInternalTable(r: SchemaRow): boolean {
  const sql = SQLITE_INTERNAL_TABLES.get(r.name);
  return sql !== undefined && r.type === 'table' && r.tbl_name === r.name && (r.rootpage ?? 0) > 0 && r.sql === sql;
}

/**
 * Whether `r` is an automatic index SQLite made for a UNIQUE or PRIMARY KEY constraint of the
 * agent's own table `tables` holds: no SQL, named `sqlite_autoindex_<table>_<n>` for its table.
 */
export function isLocalAutoIndex(r: SchemaRow, localTables: ReadonlySet<string>): boolean {
  if (r.type !== 'index' || r.sql !== null || (r.rootpage ?? 0) <= 0) return false;
  const m = /^sqlite_autoindex_(.+)_([1-9]\d{0,3})$/.exec(r.name);
  return m !== null && m[1] === r.tbl_name && localTables.has(r.tbl_name);
}

/** Two rows describe the same object (rootpage aside: VACUUM renumbers pages). */
export function sameObject(a: SchemaRow, b: SchemaRow): boolean {
  return (
    a.type === b.type &&
    a.name === b.name &&
    a.tbl_name === b.tbl_name &&
    (a.sql === null ? b.sql === null : b.sql !== null && normalizeDdl(a.sql) === normalizeDdl(b.sql))
  );
}
