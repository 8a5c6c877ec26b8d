import type Database from 'better-sqlite3';
import { TrustError } from '@trust/core';
import { adfTableTouchedBy, analyzeSchemaObject } from '../sql/schema-diff.js';
import { buildRootMap } from '../sql/statement-analysis.js';
import { ADF_INDEXES, ADF_SCHEMA_VERSION, ADF_TABLES, normalizeDdl, schemaStatements } from './schema.js';

/** One finding of the schema audit. */
export interface SchemaFinding {
  readonly code: string;
  readonly message: string;
  readonly object?: string;
}

interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/**
 * Audits a file's schema against what this runtime creates. Refuses: a wrong or missing version,
 * a failed integrity check, a changed `adf_*` table, an extra `adf_*` object, any trigger or view
 * whose compiled program touches `adf_*` (or that does not compile), any trigger on a non-`local_*`
 * table, temp-looking objects. Read-only: views and triggers are compiled with EXPLAIN, never run.
 */
export function auditAdfSchema(
  db: Database.Database,
  options: { integrity?: 'quick' | 'full' } = {},
): { version: number } {
  const check = options.integrity === 'full' ? 'integrity_check(20)' : 'quick_check(20)';
  let integrity: string[];
  try {
    integrity = (db.pragma(check) as object[]).map((r) => Object.values(r)[0] as string);
  } catch (cause) {
    throw new TrustError('ADF_CORRUPT', `the file failed SQLite's ${check}: ${(cause as Error).message}`, { cause });
  }
  if (integrity.length !== 1 || integrity[0] !== 'ok') {
    throw new TrustError(
      'ADF_CORRUPT',
      `the file failed SQLite's integrity check: ${integrity.slice(0, 3).join('; ')}`,
      { hint: 'restore the file from a backup' },
    );
  }
  const rows = db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
    .all() as SchemaRow[];
  const has = (n: string) => rows.some((r) => r.type === 'table' && r.name === n);
  if (!has('adf_meta'))
    throw new TrustError('ADF_NOT_ADF', 'the file is SQLite but has no adf_meta table', {
      hint: 'this is not an .adf file',
    });
  const versionText = db.prepare("SELECT value FROM adf_meta WHERE key = 'adf_schema_version'").pluck().get() as
    | string
    | undefined;
  const version = Number(versionText);
  if (!Number.isInteger(version) || version < 1)
    throw new TrustError('ADF_SCHEMA_TAMPERED', `adf_schema_version is "${versionText}"`, {
      hint: 'the file was not written by a trust runtime',
    });
  if (version > ADF_SCHEMA_VERSION)
    throw new TrustError(
      'ADF_TOO_NEW',
      `the file has schema version ${version}; this runtime reads up to ${ADF_SCHEMA_VERSION}`,
      { hint: 'upgrade the runtime' },
    );

  const expected = new Map<string, string>();
  for (const sql of schemaStatements(version)) {
    const name = /^CREATE (?:TABLE|INDEX) (\w+)/.exec(sql)?.[1] as string;
    expected.set(name, normalizeDdl(sql));
  }
  const findings: SchemaFinding[] = [];
  let roots: ReturnType<typeof buildRootMap> | undefined;
  for (const [name, sql] of expected) {
    const row = rows.find((r) => r.name === name);
    if (!row) findings.push({ code: 'missing', object: name, message: `${name} is missing` });
    else if (normalizeDdl(row.sql ?? '') !== sql)
      findings.push({ code: 'changed', object: name, message: `${name} differs from the runtime's definition` });
  }
  for (const r of rows) {
    if (expected.has(r.name)) continue;
    const sql = r.sql ?? '';
    if (r.type === 'trigger' || r.type === 'view') {
      if (!r.name.startsWith('local_'))
        findings.push({ code: r.type, object: r.name, message: `${r.type} ${r.name} is not a local_* object` });
      else if (r.type === 'trigger' && !r.tbl_name.startsWith('local_'))
        findings.push({ code: r.type, object: r.name, message: `trigger ${r.name} is on ${r.tbl_name}` });
      else {
        // By what the compiled program touches, not by text: a `local_adf_copy` table or an 'adf_x' literal is fine.
        roots ??= buildRootMap(db);
        const o = analyzeSchemaObject(db, r, roots);
        const adf = adfTableTouchedBy(o);
        if (o.kind !== 'ok') findings.push({ code: r.type, object: r.name, message: o.reason });
        else if (adf) findings.push({ code: r.type, object: r.name, message: `${r.type} ${r.name} touches ${adf}` });
      }
    } else if (r.type === 'table' && !r.name.startsWith('local_'))
      findings.push({ code: 'extra-table', object: r.name, message: `extra table ${r.name}` });
    else if (r.type === 'index' && (!r.tbl_name.startsWith('local_') || !r.name.startsWith('local_')))
      findings.push({ code: 'extra-index', object: r.name, message: `extra index ${r.name} on ${r.tbl_name}` });
    else if (r.type === 'table' && /\bVIRTUAL\b/i.test(sql))
      findings.push({ code: 'virtual-table', object: r.name, message: `virtual table ${r.name} is not supported` });
  }
  if (findings.length > 0) {
    throw new TrustError(
      'ADF_SCHEMA_TAMPERED',
      `the file's schema was changed outside the runtime: ${findings.map((f) => f.message).join('; ')}`,
      {
        problems: findings.map((f) => ({
          code: 'ADF_SCHEMA_TAMPERED',
          message: f.message,
          ...(f.object ? { path: f.object } : {}),
        })),
        hint: 'do not run this file; if you trust it, export its data into a fresh file with createAdf',
      },
    );
  }
  return { version };
}

export { ADF_INDEXES, ADF_TABLES };
