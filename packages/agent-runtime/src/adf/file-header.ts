import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { TrustError } from '@trust/core';

const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Checks the raw file before SQLite sees it: missing, not SQLite, or shorter than its header says
 * (a truncated copy). Reads only; never writes.
 *
 * The size check is skipped while a non-empty write-ahead log lies next to the file: a process
 * killed in the middle of a checkpoint can leave page 1 (with the new page count) written before
 * the file has grown to it, and the log still holds every page, so SQLite's recovery on open
 * completes it. A copy without its log is checked in full.
 */
export function checkSqliteHeader(path: string): FileIdentity {
  const fd = openRegularFile(path);
  try {
    const st = fstatSync(fd);
    const size = st.size;
    const head = Buffer.alloc(100);
    const n = readSync(fd, head, 0, 100, 0);
    // A short file that does not start like SQLite is not SQLite (same answer as the CLI gives);
    // an empty one, or a cut-short SQLite header, is a truncated copy.
    const m = Math.min(n, MAGIC.length);
    if (m > 0 && !head.subarray(0, m).equals(MAGIC.subarray(0, m))) {
      throw new TrustError('ADF_NOT_SQLITE', `"${path}" is not an SQLite database`, {
        hint: 'an .adf file is an SQLite 3 database; check you picked the right file',
      });
    }
    if (n < 100)
      throw new TrustError(
        'ADF_TRUNCATED',
        `"${path}" is ${size === 0 ? 'empty (0 bytes)' : `${size} bytes`}, shorter than an SQLite header`,
        {
          hint: 'the copy is incomplete; copy the file again',
        },
      );
    const rawPage = head.readUInt16BE(16);
    const pageSize = rawPage === 1 ? 65536 : rawPage;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
      throw new TrustError('ADF_CORRUPT', `"${path}" has an invalid page size ${rawPage}`);
    const changeCounter = head.readUInt32BE(24);
    const pages = head.readUInt32BE(28);
    const validFor = head.readUInt32BE(92);
    const wal = lstatSync(`${path}-wal`, { throwIfNoEntry: false });
    const walPending = wal?.isFile() && wal.size > 0;
    if (
      !walPending &&
      (size % pageSize !== 0 || (pages > 0 && changeCounter === validFor && size < pages * pageSize))
    ) {
      throw new TrustError(
        'ADF_TRUNCATED',
        `"${path}" is ${size} bytes but its header promises ${pages} pages of ${pageSize} bytes`,
        { hint: 'the copy is incomplete; copy the file again' },
      );
    }
    return { dev: st.dev, ino: st.ino };
  } finally {
    closeSync(fd);
  }
}

/** Which file a check saw: compared after SQLite opened the path, so a swapped path is noticed. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/**
 * Opens `path` for reading the way every `.adf` open must: non-blocking (a FIFO or device never
 * hangs the caller), without following a symlink at the last component, and only when `fstat`
 * says it is a regular file. Returns the descriptor; the caller closes it.
 * Missing: `ADF_NOT_FOUND`; a symlink, directory, FIFO, socket or device: `ADF_NOT_A_FILE`.
 */
export function openRegularFile(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw notAFile(path, 'a symbolic link', cause);
    throw new TrustError('ADF_NOT_FOUND', `cannot open "${path}": ${(cause as Error).message}`, {
      cause,
      hint: 'check the path, or use createAdf to make a new file',
    });
  }
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (cause) {
    closeSync(fd);
    throw cause;
  }
  if (!st.isFile()) {
    closeSync(fd);
    throw notAFile(path, kindOf(st));
  }
  return fd;
}

/** Checks that `path` is still the file {@link checkSqliteHeader} saw (not swapped for a link or another file). */
export function assertSameFile(path: string, seen: FileIdentity): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st?.isFile() || st.dev !== seen.dev || st.ino !== seen.ino)
    throw notAFile(path, st ? `${kindOf(st)} swapped in while it was being opened` : 'gone while it was being opened');
}

function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return st.isFile() ? 'another file' : 'not a regular file';
}

function notAFile(path: string, what: string, cause?: unknown): TrustError {
  return new TrustError('ADF_NOT_A_FILE', `"${path}" is ${what}, not a regular .adf file`, {
    ...(cause !== undefined ? { cause } : {}),
    hint: 'pass the path of the .adf file itself (links, FIFOs and devices are refused)',
  });
}
