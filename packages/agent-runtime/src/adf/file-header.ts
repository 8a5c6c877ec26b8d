import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
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
export function checkSqliteHeader(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new TrustError('ADF_NOT_FOUND', `cannot open "${path}": ${(cause as Error).message}`, {
      cause,
      hint: 'check the path, or use createAdf to make a new file',
    });
  }
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(100);
    const n = readSync(fd, head, 0, 100, 0);
    if (n >= MAGIC.length && !head.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new TrustError('ADF_NOT_SQLITE', `"${path}" is not an SQLite database`, {
        hint: 'an .adf file is an SQLite 3 database; check you picked the right file',
      });
    }
    if (n < 100)
      throw new TrustError('ADF_TRUNCATED', `"${path}" is ${size} bytes, shorter than an SQLite header`, {
        hint: 'the copy is incomplete; copy the file again',
      });
    const rawPage = head.readUInt16BE(16);
    const pageSize = rawPage === 1 ? 65536 : rawPage;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
      throw new TrustError('ADF_CORRUPT', `"${path}" has an invalid page size ${rawPage}`);
    const changeCounter = head.readUInt32BE(24);
    const pages = head.readUInt32BE(28);
    const validFor = head.readUInt32BE(92);
    const walPending = (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0;
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
  } finally {
    closeSync(fd);
  }
}
