import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, basename, join } from 'node:path';
import type { PolicyFileStore, PolicyFileView } from '../control/index.js';
import { controlError } from '../control/index.js';
import { MAX_POLICY_BYTES } from './studio-plugin-egress.js';

/** The store as this module makes it: synchronous from the hash check to the rename. */
export interface SyncPolicyFileStore extends PolicyFileStore {
  read(): PolicyFileView;
  write(text: string, expected: string | null): { sha256: string };
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The file's text, or undefined when it does not exist; never follows a symlink at the path. */
function readText(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw controlError(
      'CONTROL_CONFLICT',
      `${file} cannot be read as a plain file (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      'make it a regular file (not a symlink) the studio can read',
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_POLICY_BYTES)
      throw controlError(
        'CONTROL_CONFLICT',
        `${file} is not a regular file of at most ${MAX_POLICY_BYTES} bytes`,
        'replace it with a policy file (JSON, v: 1)',
      );
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The studio's store of the workspace egress policy file (`<workspace>/egress-policy.json`) for
 * the policy editor. A save is synchronous from the hash check to the rename, so two saves through
 * the studio cannot interleave; it writes a new 0600 file beside the old one (exclusive create),
 * syncs it and renames it over the path (a reader sees the old file or the new one, never half;
 * a symlink at the path is replaced, never followed). A writer outside the studio that changes
 * the file between the check and the rename is not seen (there is no lock between processes).
 *
 * @example
 * const store = createPolicyFileStore('/ws/egress-policy.json');
 * const { sha256 } = store.read(); store.write(text, sha256);
 */
export function createPolicyFileStore(file: string): SyncPolicyFileStore {
  const read = (): PolicyFileView => {
    const text = readText(file);
    return text === undefined
      ? { path: file, exists: false, text: '', sha256: null }
      : { path: file, exists: true, text, sha256: sha256(text) };
  };
  return {
    read,
    write(text, expected) {
      if (Buffer.byteLength(text, 'utf8') > MAX_POLICY_BYTES)
        throw controlError('CONTROL_BAD_REQUEST', `the policy is over ${MAX_POLICY_BYTES} bytes`, 'shorten it');
      const current = read().sha256;
      if (current !== expected)
        throw controlError(
          'CONTROL_CONFLICT',
          current === null
            ? `${basename(file)} was deleted since you opened it`
            : `${basename(file)} changed since you opened it`,
          'open it again, apply your change to the current text, then save',
        );
      const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        const buf = Buffer.from(text, 'utf8');
        for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
        fsyncSync(fd);
      } catch (e) {
        closeSync(fd);
        unlinkSync(tmp);
        throw e;
      }
      closeSync(fd);
      renameSync(tmp, file);
      const dir = openSync(dirname(file), constants.O_RDONLY);
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
      return { sha256: sha256(text) };
    },
  };
}
