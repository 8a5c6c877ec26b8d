import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, writeFileSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createAdf, openAdf } from './adf-file.js';

const dir = () => mkdtempSync(join(tmpdir(), 'adf-'));

function fresh() {
  const path = join(dir(), 'a.adf');
  createAdf(path, { template: { v: 1, name: 't' } }).close();
  return path;
}

function tamper(path: string, sql: string) {
  const db = new Database(path);
  db.exec(sql);
  db.close();
}

describe('createAdf / openAdf', () => {
  it('creates a file with every table, WAL and trusted_schema off, and reopens it', () => {
    const path = fresh();
    const adf = openAdf(path, { trust: 'owned' });
    const tables = adf.db
      .prepare("SELECT name FROM sqlite_schema WHERE type='table' AND name LIKE 'adf_%' ORDER BY name")
      .pluck()
      .all() as string[];
    expect(tables).toEqual([
      'adf_audit',
      'adf_config',
      'adf_files',
      'adf_identity',
      'adf_inbox',
      'adf_logs',
      'adf_loop',
      'adf_meta',
      'adf_outbox',
      'adf_tasks',
      'adf_timers',
    ]);
    expect(adf.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(adf.db.pragma('trusted_schema', { simple: true })).toBe(0);
    expect(adf.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(adf.config().name).toBe('t');
    expect(adf.config().messaging.receive).toBe(false);
    adf.close();
  });

  it('never overwrites an existing path', () => {
    const path = fresh();
    expect(() => createAdf(path)).toThrowTrustError('ADF_EXISTS');
  });

  it.each([
    ['missing file', (p: string) => p + '.nope', 'ADF_NOT_FOUND'],
    [
      'not sqlite',
      (p: string) => {
        writeFileSync(p + '.txt', 'hello world, this is definitely not a database file at all'.repeat(5));
        return p + '.txt';
      },
      'ADF_NOT_SQLITE',
    ],
    [
      'empty file',
      (p: string) => {
        writeFileSync(p + '.e', '');
        return p + '.e';
      },
      'ADF_TRUNCATED',
    ],
    [
      'truncated',
      (p: string) => {
        const db = new Database(p);
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.pragma('journal_mode = DELETE');
        db.close();
        truncateSync(p, statSync(p).size - 4096);
        return p;
      },
      'ADF_TRUNCATED',
    ],
    [
      'plain sqlite, not adf',
      (p: string) => {
        const q = p + '.db';
        const db = new Database(q);
        db.exec('create table x(a)');
        db.close();
        return q;
      },
      'ADF_NOT_ADF',
    ],
  ] as const)('%s gets a typed error', (_n, make, code) => {
    const path = make(fresh());
    expect(() => openAdf(path)).toThrowTrustError(code);
  });

  it('a corrupt page gets ADF_CORRUPT and the bytes are left untouched', () => {
    const path = fresh();
    const adf = openAdf(path);
    for (let i = 0; i < 200; i++) adf.logs.add({ level: 'info', message: 'x'.repeat(200) });
    adf.db.pragma('wal_checkpoint(TRUNCATE)');
    adf.db.pragma('journal_mode = DELETE');
    adf.close();
    const buf = readFileSync(path);
    for (let p = 2; p < 12; p++) buf.fill(0xab, 4096 * p, 4096 * p + 64);
    writeFileSync(path, buf);
    expect(() => openAdf(path)).toThrowTrustError('ADF_CORRUPT');
    expect(readFileSync(path).equals(buf)).toBe(true);
  });

  it('a file from a newer runtime gets ADF_TOO_NEW and is not modified', () => {
    const path = fresh();
    tamper(path, "UPDATE adf_meta SET value = '99' WHERE key = 'adf_schema_version'");
    const before = readFileSync(path);
    expect(() => openAdf(path)).toThrowTrustError('ADF_TOO_NEW');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it.each([
    [
      'trigger on adf_inbox rewriting adf_config',
      "CREATE TRIGGER evil AFTER INSERT ON adf_inbox BEGIN UPDATE adf_config SET config_json = '{}'; END",
    ],
    [
      'local trigger reaching adf_config',
      'CREATE TABLE local_a(x); CREATE TRIGGER local_t AFTER INSERT ON local_a BEGIN DELETE FROM [adf_config]; END',
    ],
    ['view over adf_identity', 'CREATE VIEW local_v AS SELECT * FROM `ADF_IDENTITY`'],
    ['extra adf table', 'CREATE TABLE adf_peers(x)'],
    ['extra non-local table', 'CREATE TABLE notes(x)'],
    ['changed column default', 'ALTER TABLE adf_files ADD COLUMN extra TEXT'],
    ['index on adf table', 'CREATE INDEX sneaky ON adf_config(config_json)'],
    ['dropped table', 'DROP TABLE adf_logs'],
  ])('schema audit refuses a file with a %s', (_n, sql) => {
    const path = fresh();
    tamper(path, sql);
    expect(() => openAdf(path)).toThrowTrustError('ADF_SCHEMA_TAMPERED');
  });

  it('accepts agent-made local_* tables, indexes and local-only triggers', () => {
    const path = fresh();
    tamper(
      path,
      'CREATE TABLE local_a(x); CREATE INDEX local_ai ON local_a(x); CREATE TABLE local_b(y); CREATE TRIGGER ' +
        'local_t AFTER INSERT ON local_a BEGIN INSERT INTO local_b VALUES (new.x); END',
    );
    openAdf(path).close();
  });

  it('accepts local views and triggers whose names or literals merely contain adf_ (judged by what they touch)', () => {
    const path = fresh();
    tamper(
      path,
      'CREATE TABLE local_adf_copy(adf_col); CREATE TABLE local_b(y); CREATE VIEW local_v AS SELECT adf_col, ' +
        "'adf_identity' AS s FROM local_adf_copy; CREATE TRIGGER local_t AFTER INSERT ON local_adf_copy BEGIN " +
        "INSERT INTO local_b VALUES ('adf_config'); END",
    );
    openAdf(path).close();
  });

  it('refuses a local view that does not compile (cannot be verified)', () => {
    const path = fresh();
    tamper(path, 'CREATE TABLE local_a(x); CREATE VIEW local_v AS SELECT x FROM local_a; DROP TABLE local_a');
    expect(() => openAdf(path)).toThrowTrustError('ADF_SCHEMA_TAMPERED');
  });

  it('an invalid stored config reports every problem', () => {
    const path = fresh();
    tamper(path, `UPDATE adf_config SET config_json = '{"v":2,"bogus":1,"limits":{"max_sql_rows":"x"}}'`);
    const e = thrownBy(() => openAdf(path));
    expect(e.code).toBeTrustCode('ADF_CONFIG_INVALID');
    expect(e.problems.length).toBeGreaterThanOrEqual(3);
  });

  it('migrates a version-1 file in one step and records the new version', () => {
    const path = join(dir(), 'old.adf');
    createAdf(path, { schemaVersion: 1 }).close();
    const adf = openAdf(path);
    expect(adf.schemaVersion).toBe(2);
    expect(adf.meta.get('adf_schema_version')).toBe('2');
    expect(adf.db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'adf_inbox_status'").pluck().get()).toBe(1);
    adf.close();
    openAdf(path, { readonly: true }).close();
  });

  it('readonly open does not migrate', () => {
    const path = join(dir(), 'old.adf');
    createAdf(path, { schemaVersion: 1 }).close();
    const adf = openAdf(path, { readonly: true });
    expect(adf.schemaVersion).toBe(1);
    adf.close();
  });
});

describe('virtual files', () => {
  it('any content write clears authorized; only owner or authorized code set it', () => {
    const adf = openAdf(fresh());
    adf.files.write('lib/gate.ts', 'export const x = 1');
    adf.files.setAuthorized('lib/gate.ts', true, 'owner');
    expect(adf.files.isAuthorized('lib/gate.ts')).toBe(true);
    adf.files.write('lib/gate.ts', 'export const x = 2');
    expect(adf.files.isAuthorized('lib/gate.ts')).toBe(false);
    expect(() => adf.files.setAuthorized('lib/gate.ts', true, 'code' as never)).toThrowTrustError(
      'REQUIRES_AUTHORIZED_CODE',
    );
    expect(adf.files.isAuthorized('lib/gate.ts')).toBe(false);
    adf.files.setAuthorized('lib/gate.ts', true, 'authorized-code');
    expect(adf.files.read('lib/gate.ts')?.authorized).toBe(true);
    expect(adf.audit.list({ action: 'file.authorize' }).map((e) => e.principal.kind)).toEqual([
      'owner',
      'authorized-code',
    ]);
    adf.close();
  });

  it('read_only refuses writes and deletes, no_delete refuses deletes, bypass is explicit', () => {
    const adf = openAdf(fresh());
    adf.files.write('a.md', 'a');
    adf.files.write('b.md', 'b');
    adf.files.setProtection('a.md', 'read_only', 'owner');
    adf.files.setProtection('b.md', 'no_delete', 'owner');
    expect(() => adf.files.write('a.md', 'x')).toThrowTrustError('ADF_FILE_PROTECTED');
    expect(() => adf.files.delete('a.md')).toThrowTrustError('ADF_FILE_PROTECTED');
    expect(() => adf.files.delete('b.md')).toThrowTrustError('ADF_FILE_PROTECTED');
    adf.files.write('b.md', 'bb');
    expect(adf.files.read('b.md')?.content.toString()).toBe('bb');
    expect(adf.files.delete('b.md', { bypassProtection: true })).toBe(true);
    expect(adf.files.list().map((f) => f.path)).toEqual(['a.md']);
    expect(() => adf.files.read('../etc/passwd')).toThrowTrustError('ADF_FILE_PATH_INVALID');
    adf.close();
  });
});

describe('tasks, meta, logs, audit', () => {
  it('reconciles crashed tasks on open', () => {
    const path = fresh();
    const adf = openAdf(path);
    const running = adf.tasks.create({ tool: 'x', args: {}, origin: 'llm', status: 'running' });
    const pending = adf.tasks.create({
      tool: 'y',
      args: {},
      origin: 'llm',
      status: 'pending_approval',
      executorManaged: true,
    });
    adf.close();
    const again = openAdf(path);
    expect(again.tasks.get(running.id)?.status).toBe('failed');
    expect(again.tasks.get(pending.id)?.status).toBe('cancelled');
    again.close();
  });

  it('runtime meta keys are not writable through the normal path', () => {
    const adf = openAdf(fresh());
    expect(() => adf.meta.set('adf_did', 'did:key:zEvil')).toThrowTrustError('ADF_META_PROTECTED');
    adf.meta.set('counter', '1', { protection: 'increment' });
    expect(() => adf.meta.set('counter', '0')).toThrowTrustError('ADF_META_PROTECTED');
    adf.meta.set('counter', '2');
    expect(adf.meta.get('counter')).toBe('2');
    adf.close();
  });

  it('logs are capped to logging.max_rows', () => {
    const path = join(dir(), 'l.adf');
    const adf = createAdf(path, { template: { v: 1, logging: { max_rows: 100 } } });
    for (let i = 0; i < 150; i++) adf.logs.add({ level: 'info', message: `m${i}` });
    const logs = adf.logs.list();
    expect(logs).toHaveLength(100);
    expect(logs[0]?.message).toBe('m50');
    adf.close();
  });

  it('audit events chain and tampering is detected', () => {
    const adf = openAdf(fresh());
    const principal = { kind: 'llm' as const, id: 'loop' };
    const a = adf.audit.record({ principal, action: 'tool.call', target: 'fs_read', decision: 'allow' });
    const b = adf.audit.record({
      principal,
      action: 'tool.call',
      target: 'fs_write',
      decision: 'deny',
      code: 'TOOL_DISABLED',
    });
    expect(b.prev).toBe(a.hash);
    expect(adf.audit.verify()).toMatchObject({ ok: true, count: 2, head: b.hash });
    adf.db.prepare('UPDATE adf_audit SET event_json = replace(event_json, \'"deny"\', \'"allow"\') WHERE id = 2').run();
    expect(adf.audit.verify().ok).toBe(false);
    adf.close();
  });
});
