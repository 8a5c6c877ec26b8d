import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { TrustError } from '@trust/core';
import { launcherCacheDir } from '@trust/os-sandbox';
import { HOST_ENTRY, loadEntry } from './sql-extension.js';

/**
 * The SQL interrupt library (`native/sql-interrupt.c`): a SQLite extension compiled on first use
 * with the system C compiler against the headers of the installed better-sqlite3, cached per user.
 * See the C source for what its two entry points do.
 */
export interface SqlInterruptBuildOptions {
  /** Directory of the cache; default `<launcher cache>/sql-interrupt` (every sandbox run hides the launcher cache). */
  readonly cacheDir?: string;
  /** C compiler; default `cc`. */
  readonly cc?: string;
  /** The C source; default the package's `native/sql-interrupt.c`. */
  readonly source?: string;
}

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

function sourcePath(): string {
  // Built layout: dist/*.js → ../native. Source layout (tests): src/sql/*.ts → ../../native.
  for (const rel of ['../native/sql-interrupt.c', '../../native/sql-interrupt.c']) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  return fileURLToPath(new URL('../native/sql-interrupt.c', import.meta.url));
}

/** The directory holding `sqlite3ext.h` of the better-sqlite3 this package loads (same SQLite build). */
function sqliteHeaders(): string {
  const req = createRequire(import.meta.url);
  return join(dirname(req.resolve('better-sqlite3/package.json')), 'deps', 'sqlite3');
}

const unavailable = (why: string, cause?: unknown): TrustError =>
  new TrustError('SQL_HOST_FAILED', `the SQL interrupt library is unavailable: ${why}`, {
    ...(cause !== undefined ? { cause } : {}),
    hint:
      'install a C compiler (Debian: apt-get install gcc libc6-dev); agent SQL then runs in worker threads. ' +
      'Until then it runs in a separate process per agent',
  });

/** Creates `dir` (0700) or checks it: a real directory of this user that nobody else may write. */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory()) throw unavailable(`${dir} is not a directory (a symlink?)`);
  if (uid !== undefined && st.uid !== uid) throw unavailable(`${dir} is owned by uid ${st.uid}, not by this user`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

function compile(cc: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cc, args, { timeout: 60_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(),
    );
  });
}

/**
 * Returns the path of the compiled library, building it into the cache on first use:
 * `<cacheDir>/<16 hex of the source and headers' hash>.so`, with its SHA-256 recorded in a
 * manifest next to it when built and checked before every load (a changed file is refused, not
 * loaded into this process). Throws `SQL_HOST_FAILED` when there is no compiler or the cache is unsafe.
 *
 * @example
 * const lib = await ensureSqlInterruptLibrary();
 */
export async function ensureSqlInterruptLibrary(options: SqlInterruptBuildOptions = {}): Promise<string> {
  const source = options.source ?? sourcePath();
  const headers = sqliteHeaders();
  let text: string;
  try {
    text = `${readFileSync(source, 'utf8')}\0${readFileSync(join(headers, 'sqlite3ext.h'), 'utf8')}\0${process.arch}`;
  } catch (e) {
    throw unavailable(`its source or SQLite's headers are missing (${source}, ${headers})`, e);
  }
  const cacheDir = options.cacheDir ?? join(launcherCacheDir(), 'sql-interrupt');
  ensurePrivateDir(cacheDir);
  const key = sha256(text).slice(0, 16);
  const lib = join(cacheDir, `${key}.so`);
  const manifest = join(cacheDir, `${key}.json`);
  if (!existsSync(lib) || !existsSync(manifest)) {
    const tmp = `${lib}.${process.pid}.${Date.now()}.tmp`;
    try {
      await compile(options.cc ?? 'cc', [
        '-O2',
        '-Wall',
        '-shared',
        '-fPIC',
        '-Wl,-z,nodelete',
        `-I${headers}`,
        '-o',
        tmp,
        source,
        '-lpthread',
      ]);
    } catch (e) {
      throw unavailable('it could not be compiled with the system C compiler', e);
    }
    chmodSync(tmp, 0o700);
    const mtmp = `${manifest}.${process.pid}.tmp`;
    writeFileSync(mtmp, `${JSON.stringify({ v: 1, sha256: sha256(readFileSync(tmp)) })}\n`, { mode: 0o600 });
    renameSync(tmp, lib);
    renameSync(mtmp, manifest);
  }
  let expected: unknown;
  try {
    expected = (JSON.parse(readFileSync(manifest, 'utf8')) as { sha256?: unknown }).sha256;
  } catch {
    expected = undefined;
  }
  const st = lstatSync(lib);
  const uid = process.getuid?.();
  if (!st.isFile() || st.nlink !== 1 || (st.mode & 0o022) !== 0 || (uid !== undefined && st.uid !== uid))
    throw unavailable(`${lib} is not a private regular file of this user; delete ${cacheDir} so it is rebuilt`);
  if (typeof expected !== 'string' || sha256(readFileSync(lib)) !== expected)
    throw unavailable(`${lib} does not match its recorded hash; delete ${cacheDir} so it is rebuilt`);
  return lib;
}

/** The host's side of the library: a private in-memory connection holding `trust_interrupt`/`trust_arm`. */
export interface SqlInterrupter {
  /**
   * Stops what agent SQL on thread `tid` is running now, and any statement it starts until
   * re-armed; returns how many connections were reached.
   */
  interrupt(tid: number): number;
  /** Clears the stop mark before the host sends thread `tid` its next request. */
  arm(tid: number): void;
  close(): void;
}

/**
 * Loads the host entry point into a private in-memory connection on this thread. That connection
 * never runs agent SQL, so agent SQL can never call these functions.
 */
export function openSqlInterrupter(lib: string): SqlInterrupter {
  const db = new Database(':memory:');
  try {
    loadEntry(db, lib, HOST_ENTRY);
  } catch (e) {
    db.close();
    throw unavailable(`it could not be loaded (${(e as Error).message})`, e);
  }
  const interrupt = db.prepare('SELECT trust_interrupt(?)').pluck();
  const arm = db.prepare('SELECT trust_arm(?)').pluck();
  return {
    interrupt: (tid) => interrupt.get(tid) as number,
    arm: (tid) => {
      arm.get(tid);
    },
    close: () => db.close(),
  };
}
