import {
  fstatSync,
  linkSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  type BigIntStats,
} from 'node:fs';
import { typeOf } from './directory-stream.js';
import { toErrorCode } from './fs-error.js';
import { fdPath } from './proc-fd.js';
import { walkBeneath, type WalkEnd } from './walk.js';

/**
 * The `*-at` calls that do not return a descriptor. Each walks the guest path beneath the base
 * descriptor (walk.ts), then acts on ONE name inside the directory descriptor the walk ended on,
 * through `/proc/self/fd/<dir>/<name>`. Every syscall used here acts on the final name itself and
 * does not follow it (lstat, lutimes, mkdir, rmdir, unlink, rename, link, symlink, readlink);
 * where WASI asks to follow a final symlink, the walk resolves it beneath the base first. So no
 * call resolves more than one name, and none resolves a symlink the guest planted.
 */

export type Timestamp =
  | { tag: 'no-change' }
  | { tag: 'now' }
  | { tag: 'timestamp'; val: { seconds: bigint; nanoseconds: number } };

const datetime = (ns: bigint) => ({ seconds: ns / 1_000_000_000n, nanoseconds: Number(ns % 1_000_000_000n) });

/** A `descriptor-stat` from bigint stats. */
export function toDescriptorStat(s: BigIntStats) {
  return {
    type: typeOf(s),
    linkCount: s.nlink,
    size: s.size,
    dataAccessTimestamp: datetime(s.atimeNs),
    dataModificationTimestamp: datetime(s.mtimeNs),
    statusChangeTimestamp: datetime(s.ctimeNs),
  };
}

/** Walks, runs `fn` on the end, releases the walk; failures become error codes. */
export function atPath<T>(base: number, path: string, follow: boolean, fn: (end: WalkEnd) => T): T {
  const end = walkBeneath(base, path, follow);
  try {
    return fn(end);
  } catch (e) {
    throw toErrorCode(e);
  } finally {
    end.release();
  }
}

/** The end's final name; the calls that create or remove a name need one. */
function named(end: WalkEnd, whenDir: string): string {
  if (end.name === undefined) throw whenDir;
  return end.name;
}

/** Stats of the end: the named entry itself (lstat), or the directory the walk ended on. */
export function statEnd(end: WalkEnd): BigIntStats {
  return end.name === undefined
    ? fstatSync(end.fd, { bigint: true })
    : lstatSync(fdPath(end.fd, end.name), { bigint: true });
}

/** Seconds since the epoch for utimes, from a `new-timestamp` (no-change reads `current`). */
function seconds(t: Timestamp, currentNs: () => bigint): number {
  if (t.tag === 'now') return Date.now() / 1000;
  if (t.tag === 'timestamp') return Number(t.val.seconds) + t.val.nanoseconds / 1e9;
  return Number(currentNs()) / 1e9;
}

export function setTimesEnd(end: WalkEnd, atime: Timestamp, mtime: Timestamp): void {
  let st: BigIntStats | undefined;
  const current = () => (st ??= statEnd(end));
  const a = seconds(atime, () => current().atimeNs);
  const m = seconds(mtime, () => current().mtimeNs);
  // the directory itself: its magic link leads to exactly the open directory
  if (end.name === undefined) utimesSync(fdPath(end.fd), a, m);
  else lutimesSync(fdPath(end.fd, end.name), a, m);
}

export const pathOps = {
  createDirectory: (base: number, path: string) =>
    atPath(base, path, false, (e) => mkdirSync(fdPath(e.fd, named(e, 'exist')))),
  removeDirectory: (base: number, path: string) =>
    atPath(base, path, false, (e) => rmdirSync(fdPath(e.fd, named(e, 'busy')))),
  unlinkFile: (base: number, path: string) =>
    atPath(base, path, false, (e) => {
      const name = named(e, 'is-directory');
      if (e.mustBeDir) throw lstatSync(fdPath(e.fd, name)).isDirectory() ? 'is-directory' : 'not-directory';
      unlinkSync(fdPath(e.fd, name));
    }),
  readlink: (base: number, path: string) =>
    atPath(base, path, false, (e) => readlinkSync(fdPath(e.fd, named(e, 'invalid')))),
  rename(base: number, oldPath: string, newBase: number, newPath: string): void {
    atPath(base, oldPath, false, (from) =>
      atPath(newBase, newPath, false, (to) =>
        renameSync(fdPath(from.fd, named(from, 'busy')), fdPath(to.fd, named(to, 'busy'))),
      ),
    );
  },
  link(base: number, oldPath: string, follow: boolean, newBase: number, newPath: string): void {
    atPath(base, oldPath, follow, (from) =>
      atPath(newBase, newPath, false, (to) =>
        linkSync(fdPath(from.fd, named(from, 'not-permitted')), fdPath(to.fd, named(to, 'exist'))),
      ),
    );
  },
  /**
   * A symlink only when its target, read from the link's own directory, stays beneath the base
   * descriptor: never absolute, and never more `..` than the directories between the base and the
   * link. (Following links is confined anyway; this keeps the guest from leaving a link that
   * points outside for anyone else on the host to follow.)
   */
  symlink(base: number, target: string, path: string): void {
    if (target === '' || target.includes('\0')) throw 'invalid';
    if (target.startsWith('/')) throw 'not-permitted';
    atPath(base, path, false, (e) => {
      const name = named(e, 'exist');
      let depth = e.depth;
      for (const seg of target.split('/')) {
        if (seg === '' || seg === '.') continue;
        depth += seg === '..' ? -1 : 1;
        if (depth < 0) throw 'not-permitted';
      }
      symlinkSync(target, fdPath(e.fd, name));
    });
  },
};
