import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSqliteHeader } from './file-header.js';

describe('checkSqliteHeader', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'adf-header-'));
    path = join(dir, 'a.adf');
    const db = new Database(path);
    db.exec('create table t(x); insert into t values (1)');
    db.close();
    // The header's page count, raised past the end of the file (as a checkpoint cut short leaves it).
    const bytes = readFileSync(path);
    bytes.writeUInt32BE(bytes.readUInt32BE(28) + 5, 28);
    writeFileSync(path, bytes);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a file shorter than its header says when there is no write-ahead log (a truncated copy)', () => {
    expect(() => checkSqliteHeader(path)).toThrowTrustError('ADF_TRUNCATED');
    writeFileSync(`${path}-wal`, '');
    expect(() => checkSqliteHeader(path)).toThrowTrustError('ADF_TRUNCATED');
  });

  it(
    'leaves the size to SQLite recovery while a non-empty write-ahead log lies next to it (a crash ' +
      'mid-checkpoint)',
    () => {
      writeFileSync(`${path}-wal`, Buffer.alloc(4096, 1));
      expect(() => checkSqliteHeader(path)).not.toThrow();
    },
  );
});
