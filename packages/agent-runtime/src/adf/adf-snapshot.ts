import Database from 'better-sqlite3';
import { closeSync, copyFileSync, lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { TrustError } from '@trust/core';
import { assertSameFile, checkSqliteHeader, openRegularFile } from './file-header.js';

/** The side files SQLite replays into a database at its first open: the write-ahead log and a hot rollback journal. */
const REPLAYED = ['-wal', '-journal'] as const;

/**
 * Runs `use` on a private copy of an `.adf` file that holds exactly what an open of the real
 * file would load: the file and every side file SQLite would replay (`-wal`, a hot `-journal`)
 * are copied, then the copy is settled (SQLite replays them into it, in a private directory), so
 * a read-only open of the copy sees what a writable open of the original runs. A side file that
 * is not a regular file (a symlink, a FIFO) is refused with `ADF_SIDE_FILE_UNSAFE`. The user's
 * directory is never written; the copy is removed afterwards. Inspect and review both read
 * through this one function.
 *
 * @example
 * const name = await withAdfSnapshot('agent.adf', (copy) => {
 *   const adf = openAdf(copy, { trust: 'foreign', readonly: true });
 *   try { return adf.config().name; } finally { adf.close(); }
 * });
 */
export async function withAdfSnapshot<T>(file: string, use: (copy: string) => T | Promise<T>): Promise<T> {
  const seen = checkSqliteHeader(file);
  const dir = mkdtempSync(join(tmpdir(), 'trust-adf-'));
  try {
    const copy = join(dir, basename(file));
    copyFileSync(file, copy);
    assertSameFile(file, seen);
    for (const side of REPLAYED) {
      const st = lstatSync(`${file}${side}`, { throwIfNoEntry: false });
      if (!st) continue;
      if (!st.isFile())
        throw new TrustError('ADF_SIDE_FILE_UNSAFE', `"${file}${side}" is not a regular file`, {
          hint: `SQLite would replay ${side} into the file; remove it if you did not put it there`,
        });
      if (st.size === 0) continue;
      closeSync(openRegularFile(`${file}${side}`));
      copyFileSync(`${file}${side}`, `${copy}${side}`);
    }
    settle(copy);
    return await use(copy);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Lets SQLite replay the copied side files into the private copy (reading page 1 does), then checkpoints. */
function settle(copy: string): void {
  let db: Database.Database;
  try {
    db = new Database(copy, { fileMustExist: true });
  } catch {
    return; // openAdf on the copy reports what is wrong with it
  }
  try {
    db.unsafeMode(false);
    db.pragma('trusted_schema = OFF');
    db.pragma('schema_version');
  } catch {
    /* the open of the copy reports it, with its code */
  } finally {
    db.close();
  }
}
