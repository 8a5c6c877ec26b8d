import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf, openAdf } from './adf-file.js';
import { withAdfSnapshot } from './adf-snapshot.js';

/**
 * The attack: a rollback-journal file whose hot `-journal` holds the pages of an autonomous
 * config, while the database file itself says not autonomous. A process that changed the config
 * and was killed mid-transaction (its cache spilled to the file) leaves exactly that.
 */
function hotJournalFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'adf-snap-')), 'x.adf');
  createAdf(path, { template: { v: 1, name: 'x', autonomous: true } }).close();
  const db = new Database(path);
  db.pragma('journal_mode = DELETE');
  db.close();
  const lib = createRequire(import.meta.url).resolve('better-sqlite3');
  const child = `
    const Database = require(process.argv[1]);
    const db = new Database(process.argv[2]);
    db.pragma('cache_size = 1');
    db.exec('BEGIN IMMEDIATE');
    db.prepare("UPDATE adf_config SET config_json = json_set(config_json, '$.autonomous', json('false'))").run();
    const ins = db.prepare("INSERT INTO adf_logs (level, message, created_at) VALUES ('info', ?, '')");
    for (let i = 0; i < 400; i++) ins.run('x'.repeat(2000));
    process.kill(process.pid, 'SIGKILL');
  `;
  spawnSync(process.execPath, ['-e', child, lib, path], { cwd: dirname(lib) });
  expect(existsSync(`${path}-journal`)).toBe(true);
  return path;
}

const autonomousOf = (path: string) => {
  const adf = openAdf(path, { trust: 'foreign', readonly: true });
  try {
    return adf.config().autonomous;
  } finally {
    adf.close();
  }
};

describe('withAdfSnapshot: the copy holds what an open of the file would load', () => {
  it('brings a hot -journal along, so the snapshot shows the config that would run', async () => {
    const path = hotJournalFile();
    // A copy of the file alone (what inspect read before: it copied only a -wal) shows another config.
    const bare = join(mkdtempSync(join(tmpdir(), 'adf-snap-bare-')), 'x.adf');
    copyFileSync(path, bare);
    expect(autonomousOf(bare)).toBe(false);
    const seen = await withAdfSnapshot(path, autonomousOf);
    expect(readdirSync(dirname(path)).sort()).toEqual(['x.adf', 'x.adf-journal']);
    // What really runs: the writable open replays the journal.
    const real = openAdf(path, { trust: 'owned' });
    const runs = real.config().autonomous;
    real.close();
    expect(runs).toBe(true);
    expect(seen).toBe(runs);
  });

  it('refuses a side file that is a symlink', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'adf-snap-')), 'y.adf');
    createAdf(path).close();
    symlinkSync('/etc/passwd', `${path}-journal`);
    await expect(withAdfSnapshot(path, () => 1)).rejects.toHaveTrustCode('ADF_SIDE_FILE_UNSAFE');
  });
});
