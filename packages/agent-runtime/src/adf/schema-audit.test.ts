import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { computeAdfContentHash } from '../identity/adf-review.js';
import { createAdf, openAdf, type AdfFile } from './adf-file.js';

function fresh(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'adf-audit-')), 'a.adf');
  createAdf(path, { template: { v: 1, name: 't' } }).close();
  return path;
}

/** What an attacker does with the sqlite3 shell: defensive mode off, rows written straight into sqlite_schema. */
function plant(path: string, rows: ReadonlyArray<readonly [string, string, string, string | null]>, setup = ''): void {
  const db = new Database(path);
  if (setup) db.exec(setup);
  db.unsafeMode(true);
  const v = db.pragma('schema_version', { simple: true }) as number;
  db.pragma('writable_schema = ON');
  const ins = db.prepare('INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql) VALUES (?, ?, ?, 0, ?)');
  for (const r of rows) ins.run(...r);
  db.pragma('writable_schema = OFF');
  db.pragma(`schema_version = ${v + 1}`);
  db.close();
}

/** The raw hash over a file that openAdf refuses (the hash reads only `db`). */
function rawHash(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return computeAdfContentHash({ db } as unknown as AdfFile);
  } finally {
    db.close();
  }
}

const REWRITE_CONFIG =
  "BEGIN UPDATE adf_config SET config_json = json_set(config_json, '$.autonomous', json('true')); END";

describe('schema audit: every row SQLite loads', () => {
  it.each(['sqlite_t_audit', 'Sqlite_t_audit', 'SQLITE_x'])(
    'refuses a trigger named %s planted with writable_schema on a table the host writes, and the hash sees it',
    (name) => {
      const path = fresh();
      const before = rawHash(path);
      plant(path, [
        ['trigger', name, 'adf_inbox', `CREATE TRIGGER ${name} AFTER INSERT ON adf_inbox ${REWRITE_CONFIG}`],
      ]);
      const e = thrownBy(() => openAdf(path, { trust: 'owned' }));
      expect(e.code).toBeTrustCode('ADF_SCHEMA_TAMPERED');
      expect(e.message).toContain(name);
      expect(rawHash(path)).not.toBe(before);
    },
  );

  it.each([
    [
      'a trigger row that names one table while its SQL is on another',
      'CREATE TABLE local_a(x); CREATE TABLE local_b(x)',
      [
        [
          'trigger',
          'local_t',
          'local_a',
          `CREATE TRIGGER local_t2 AFTER INSERT ON local_b BEGIN DELETE FROM adf_logs; END`,
        ],
      ],
    ],
    [
      'a local_ trigger whose SQL is on adf_files',
      'CREATE TABLE local_a(x)',
      [['trigger', 'local_t', 'local_a', `CREATE TRIGGER local_t AFTER UPDATE ON adf_files ${REWRITE_CONFIG}`]],
    ],
    [
      'a fake sqlite_sequence of another shape',
      '',
      [['table', 'sqlite_stat9', 'sqlite_stat9', 'CREATE TABLE sqlite_stat9(a)']],
    ],
    [
      'a trigger calling fts3_tokenizer',
      'CREATE TABLE local_a(x)',
      [
        [
          'trigger',
          'local_t',
          'local_a',
          "CREATE TRIGGER local_t AFTER INSERT ON local_a BEGIN SELECT fts3_tokenizer('x'); END",
        ],
      ],
    ],
    ['a schema row of an unknown type', '', [['module', 'local_m', 'local_m', null]]],
  ] as const)('refuses %s with ADF_SCHEMA_TAMPERED (never a raw SQLite error)', (_n, setup, rows) => {
    const path = fresh();
    plant(path, rows, setup);
    const e = thrownBy(() => openAdf(path, { trust: 'owned' }));
    expect(e.code).toMatch(/^ADF_(SCHEMA_TAMPERED|CORRUPT)$/);
    expect(e.name).toBe('TrustError');
  });

  it('refuses a local table whose foreign key makes a write to adf_files run an action', () => {
    const path = fresh();
    const db = new Database(path);
    db.exec('CREATE TABLE local_f(p TEXT REFERENCES adf_files(path) ON DELETE CASCADE)');
    db.close();
    const e = thrownBy(() => openAdf(path, { trust: 'owned' }));
    expect(e.code).toBeTrustCode('ADF_SCHEMA_TAMPERED');
    expect(e.message).toContain('adf_files');
  });

  it("accepts SQLite's own statistics tables and the agent's views over what agent SQL may read", () => {
    const path = fresh();
    const db = new Database(path);
    db.exec('CREATE TABLE local_n(k TEXT PRIMARY KEY, v); CREATE INDEX local_n_v ON local_n(v);');
    db.exec('CREATE VIEW local_recent AS SELECT seq, role FROM adf_loop; ANALYZE');
    db.exec('CREATE TRIGGER local_t AFTER INSERT ON local_n BEGIN INSERT INTO local_n VALUES (NEW.k || 1, 1); END');
    db.close();
    const adf = openAdf(path, { trust: 'owned' });
    const names = adf.db.prepare('SELECT name FROM sqlite_schema').pluck().all();
    expect(names).toEqual(expect.arrayContaining(['sqlite_stat1', 'sqlite_autoindex_local_n_1', 'sqlite_sequence']));
    adf.close();
  });

  it('refuses a view over a secret table even when the row calls it something else', () => {
    const path = fresh();
    plant(path, [['view', 'local_v', 'local_v', 'CREATE VIEW local_w AS SELECT * FROM adf_identity']]);
    // SQLite itself may call such a schema malformed: either way a stable code, never an open file.
    expect(thrownBy(() => openAdf(path, { trust: 'owned' })).code).toMatch(/^ADF_(SCHEMA_TAMPERED|CORRUPT)$/);
  });

  it('sets the defensive settings explicitly', () => {
    const adf = openAdf(fresh(), { trust: 'owned' });
    expect(adf.db.pragma('trusted_schema', { simple: true })).toBe(0);
    expect(adf.db.pragma('writable_schema', { simple: true })).toBe(0);
    expect(adf.db.pragma('cell_size_check', { simple: true })).toBe(1);
    // Defensive mode: even with writable_schema the schema cannot be written.
    adf.db.pragma('writable_schema = ON');
    expect(() => adf.db.exec("UPDATE sqlite_schema SET sql = sql WHERE name = 'adf_meta'")).toThrow();
    adf.close();
  });
});
