import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { TrustError } from '@trust/core';

/** Default time budget of the full integrity check of a foreign file. */
export const DEFAULT_INTEGRITY_BUDGET_MS = 10_000;

/**
 * The full check runs in a child process: SQLite's integrity check evaluates the file's own
 * CHECK expressions, index expressions and partial-index conditions on every row, so a file can
 * make it arbitrarily slow. The child is killed at the budget (an interrupt that cannot be
 * missed), and its connection is read-only with `trusted_schema=OFF`.
 */
const CHILD = `
const [lib, file] = process.argv.slice(1);
const Database = require(lib);
const db = new Database(file, { readonly: true, fileMustExist: true });
db.unsafeMode(false);
db.pragma('trusted_schema = OFF');
const rows = db.pragma('integrity_check(20)').map((r) => Object.values(r)[0]);
process.stdout.write(JSON.stringify(rows));
`;

/**
 * Checks SQLite's integrity of an open file.
 *
 * `quick` (files this runtime made): `quick_check` in this process with the file's CHECK
 * constraints ignored, so no expression of the file runs (structure only; linear in its size).
 * `full` (foreign files): `integrity_check` including CHECK constraints and index contents, in a
 * child process killed after `budgetMs`; a file that takes longer is refused with `ADF_TOO_COSTLY`.
 * A failed check is `ADF_CORRUPT`.
 */
export function checkAdfIntegrity(
  db: Database.Database,
  path: string,
  options: { mode: 'quick' | 'full'; budgetMs?: number },
): void {
  let rows: string[];
  if (options.mode === 'quick') {
    db.pragma('ignore_check_constraints = ON');
    try {
      rows = (db.pragma('quick_check(20)') as object[]).map((r) => String(Object.values(r)[0]));
    } catch (cause) {
      throw new TrustError('ADF_CORRUPT', `the file failed SQLite's quick_check: ${(cause as Error).message}`, {
        cause,
      });
    } finally {
      db.pragma('ignore_check_constraints = OFF');
    }
  } else rows = fullCheck(path, options.budgetMs ?? DEFAULT_INTEGRITY_BUDGET_MS);
  if (rows.length !== 1 || rows[0] !== 'ok') {
    throw new TrustError(
      'ADF_CORRUPT',
      `the file failed SQLite's integrity check: ${rows.slice(0, 3).join('; ').slice(0, 500)}`,
      { hint: 'restore the file from a backup' },
    );
  }
}

function fullCheck(path: string, budgetMs: number): string[] {
  const lib = createRequire(import.meta.url).resolve('better-sqlite3');
  const r = spawnSync(process.execPath, ['-e', CHILD, lib, path], {
    timeout: budgetMs,
    killSignal: 'SIGKILL',
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Killed at the budget: spawnSync reports ETIMEDOUT, and the child ends by the kill signal given.
  if ((r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') || r.signal === 'SIGKILL') {
    throw new TrustError(
      'ADF_TOO_COSTLY',
      `the integrity check of "${path}" did not finish within ${budgetMs} ms: the file's own CHECK or index ` +
        'expressions make it too costly to verify',
      {
        hint:
          'do not run this file; if you trust its author, ask for a copy without costly local_* constraints, ' +
          'or open it with a larger integrityBudgetMs',
      },
    );
  }
  if (r.status !== 0 || r.error) {
    const ended = `the check ended with ${r.error ? (r.error as NodeJS.ErrnoException).code : `exit ${r.status}`}`;
    const why = (r.stderr ?? '').split('\n').find((l) => /Error/.test(l)) ?? `${ended} (signal ${r.signal ?? 'none'})`;
    throw new TrustError('ADF_CORRUPT', `the file failed SQLite's integrity check: ${why.slice(0, 300)}`, {
      hint: 'restore the file from a backup',
    });
  }
  try {
    const rows = JSON.parse(r.stdout) as unknown;
    if (Array.isArray(rows)) return rows.map(String);
  } catch {
    /* below */
  }
  throw new TrustError('ADF_CORRUPT', "the file's integrity check gave no answer", {
    hint: 'restore the file from a backup',
  });
}
