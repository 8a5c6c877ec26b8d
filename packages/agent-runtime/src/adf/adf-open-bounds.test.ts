import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createAdf, openAdf } from './adf-file.js';

const dir = () => mkdtempSync(join(tmpdir(), 'adf-bounds-'));

function fresh(): string {
  const path = join(dir(), 'a.adf');
  createAdf(path, { template: { v: 1, name: 't' } }).close();
  return path;
}

function raw(path: string, fn: (db: Database.Database) => void): void {
  const db = new Database(path);
  try {
    fn(db);
  } finally {
    db.close();
  }
}

describe('openAdf: a bounded, typed open of a hostile path', () => {
  it('refuses a FIFO at the path without hanging (ADF_NOT_A_FILE)', () => {
    const fifo = join(dir(), 'x.adf');
    execFileSync('mkfifo', [fifo]);
    expect(() => openAdf(fifo)).toThrowTrustError('ADF_NOT_A_FILE');
  });

  it('refuses a symlinked path in openAdf, and createAdf never writes through one', () => {
    const target = fresh();
    const link = join(dir(), 'link.adf');
    symlinkSync(target, link);
    expect(thrownBy(() => openAdf(link, { trust: 'owned' })).message).toContain('symbolic link');
    expect(() => openAdf(link, { trust: 'owned' })).toThrowTrustError('ADF_NOT_A_FILE');
    const dangling = join(dir(), 'new.adf');
    symlinkSync(join(dir(), 'elsewhere.adf'), dangling);
    expect(() => createAdf(dangling)).toThrowTrustError('ADF_EXISTS');
  });

  it('an empty file is ADF_TRUNCATED, a short text file ADF_NOT_SQLITE (the codes the CLI gives)', () => {
    const d = dir();
    writeFileSync(join(d, 'empty.adf'), '');
    writeFileSync(join(d, 'short.adf'), 'hi\n');
    expect(() => openAdf(join(d, 'empty.adf'))).toThrowTrustError('ADF_TRUNCATED');
    expect(() => openAdf(join(d, 'short.adf'))).toThrowTrustError('ADF_NOT_SQLITE');
  });

  it('refuses config metadata nested 100,000 deep with ADF_CONFIG_INVALID before anything recursive runs', () => {
    const path = fresh();
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    raw(path, (db) => {
      const config = JSON.parse(db.prepare('SELECT config_json FROM adf_config').pluck().get() as string);
      config.metadata = {};
      const text = JSON.stringify(config).replace('"metadata":{}', `"metadata":${deep}`);
      db.prepare('UPDATE adf_config SET config_json = ?').run(text);
    });
    const e = thrownBy(() => openAdf(path, { trust: 'owned' }));
    expect(e.code).toBeTrustCode('ADF_CONFIG_INVALID');
    expect(e.message).toContain('deeper than 64');
  });

  it('refuses a file whose own index expression makes the integrity check too costly, past the time budget', () => {
    const path = fresh();
    // Costly enough a row that even the first 20 rows (where SQLite's check stops reporting the
    // index rows the swapped expression no longer matches) take far longer than the budget.
    const costly = "length(replace(hex(zeroblob(8000000 + a)), '0', 'ab'))";
    raw(path, (db) => {
      db.exec('CREATE TABLE local_slow (a INTEGER); CREATE INDEX local_slow_i ON local_slow (a)');
      const ins = db.prepare('INSERT INTO local_slow VALUES (?)');
      for (let i = 0; i < 400; i++) ins.run(i);
      // The attacker swaps in a costly expression (building it honestly would cost the same as checking it).
      db.unsafeMode(true);
      db.pragma('writable_schema = ON');
      db.prepare("UPDATE sqlite_schema SET sql = ? WHERE name = 'local_slow_i'").run(
        `CREATE INDEX local_slow_i ON local_slow (${costly})`,
      );
    });
    const e = thrownBy(() => openAdf(path, { integrityBudgetMs: 300 }));
    // The message travels with the code, so a refusal for another reason says which.
    expect({ code: e.code, message: e.message }).toMatchObject({ code: expect.toBeTrustCode('ADF_TOO_COSTLY') });
    expect(e.hint).toContain('integrityBudgetMs');
    // The owner's own quick check runs no expression of the file, so it stays cheap.
    openAdf(path, { trust: 'owned' }).close();
  });
});
