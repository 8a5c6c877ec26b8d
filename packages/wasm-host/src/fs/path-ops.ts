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
import type { WalkScope } from './grant-roots.js';
import { fdPath } from './proc-fd.js';
import { walkBeneath, type WalkEnd } from './walk.js';

/**
 * The `*-at` calls that do not return a descriptor. Each walks the guest path beneath the base
 * descriptor (walk.ts), then acts on ONE name inside the directory descriptor the walk ended on,
 * through `/proc/self/fd/<dir>/<name>`. Every syscall used here acts on the final name itself and
 * does not follow it (lstat, lutimes, mkdir, rmdir, unlink, rename, link, symlink, readlink);
 * where WASI asks to follow a final symlink, the walk resolves it beneath the base first. So no
 * call resolves more than one name, and none resolves a symlink the guest planted.
 *
 * Rights are checked where the walk ends, not on the descriptor the call came from: with nested
 * grants a path through a read-only directory may end in a writable one, and the reverse.
 */

/** A directory descriptor to walk from, with its rights and the plugin's nested entries. */
export interface At {
  readonly fd: number;
  readonly scope: WalkScope;
}

/**
 * What a call does at the end of its walk: `read` it, `write` the entry itself (its times), or
 * change the `name` in its directory (create, remove, rename, link). A deny entry is `access`
 * for all three; a nested grant's own name cannot be changed (`busy`, as a mount point).
 */
export type Need = 'read' | 'write' | 'name';

/** Throws the error-code for `need` at `end`, if the rights there do not allow it. */
export function checkEnd(end: WalkEnd, need: Need): void {
  const entry = end.finalRoot();
  if (entry === 'none') throw 'access';
  if (need === 'read') return;
  if (need === 'write') {
    if ((entry === undefined || entry === 'keep' ? end.mode : entry) !== 'rw') throw 'read-only';
    return;
  }
  if (end.mode !== 'rw') throw 'read-only';
  if (entry !== undefined) throw 'busy';
}

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

/** Walks, checks `need` at the end, runs `fn` on it, releases the walk; failures become error codes. */
export function atPath<T>(at: At, path: string, follow: boolean, need: Need, fn: (end: WalkEnd) => T): T {
  const end = walkBeneath(at.fd, path, follow, at.scope);
  try {
    checkEnd(end, need);
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
  createDirectory: (at: At, path: string) =>
    atPath(at, path, false, 'name', (e) => mkdirSync(fdPath(e.fd, named(e, 'exist')))),
  removeDirectory: (at: At, path: string) =>
    atPath(at, path, false, 'name', (e) => rmdirSync(fdPath(e.fd, named(e, 'busy')))),
  unlinkFile: (at: At, path: string) =>
    atPath(at, path, false, 'name', (e) => {
      const name = named(e, 'is-directory');
      if (e.mustBeDir) throw lstatSync(fdPath(e.fd, name)).isDirectory() ? 'is-directory' : 'not-directory';
      unlinkSync(fdPath(e.fd, name));
    }),
  readlink: (at: At, path: string) =>
    atPath(at, path, false, 'read', (e) => readlinkSync(fdPath(e.fd, named(e, 'invalid')))),
  rename(at: At, oldPath: string, newAt: At, newPath: string): void {
    atPath(at, oldPath, false, 'name', (from) =>
      atPath(newAt, newPath, false, 'name', (to) =>
        renameSync(fdPath(from.fd, named(from, 'busy')), fdPath(to.fd, named(to, 'busy'))),
      ),
    );
  },
  link(at: At, oldPath: string, follow: boolean, newAt: At, newPath: string): void {
    // both ends change a name: a hard link from a read-only tree into a writable one would make
    // the read-only file writable through its new name
    atPath(at, oldPath, follow, 'name', (from) =>
      atPath(newAt, newPath, false, 'name', (to) =>
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
  symlink(at: At, target: string, path: string): void {
    if (target === '' || target.includes('\0')) throw 'invalid';
    if (target.startsWith('/')) throw 'not-permitted';
    atPath(at, path, false, 'name', (e) => {
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
