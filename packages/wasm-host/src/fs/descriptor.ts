import { constants, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, futimesSync, openSync } from 'node:fs';
import { createDirectoryStreamClass, typeOf } from './directory-stream.js';
import type { FdRef, FdTable } from './fd-ref.js';
import { fsCall, toErrorCode } from './fs-error.js';
import { createFileStreams, readAt, writeAllAt, type StreamDeps } from './fs-streams.js';
import { fdPath, OPEN } from './proc-fd.js';
import { rootOfFd, type GrantRoots } from './grant-roots.js';
import {
  atPath,
  checkEnd,
  pathOps,
  setTimesEnd,
  statEnd,
  toDescriptorStat,
  type At,
  type Timestamp,
} from './path-ops.js';
import { walkBeneath } from './walk.js';

type Flags = {
  read?: boolean;
  write?: boolean;
  fileIntegritySync?: boolean;
  dataIntegritySync?: boolean;
  requestedWriteSync?: boolean;
  mutateDirectory?: boolean;
};
type OpenFlags = { create?: boolean; directory?: boolean; exclusive?: boolean; truncate?: boolean };
type PathFlags = { symlinkFollow?: boolean };
type Mode = 'ro' | 'rw';

/**
 * The `wasi:filesystem/types` `descriptor` class of ONE plugin instance (a fresh class per
 * instance: jco checks `instanceof` against the class in that instance's imports, so no object
 * crosses between plugins). Each object holds a host descriptor and the mode of the grant it
 * came from. A call on the object itself checks that mode; a call on a path checks the rights
 * where the walk ends (on both ends for `rename-at`/`link-at`), which a nested grant on the way
 * may change (`roots`, see grant-roots.ts). A child takes the rights of where it was opened.
 * Paths resolve beneath the object's own descriptor (walk.ts).
 */
export function createDescriptorClass(table: FdTable, deps: StreamDeps, roots: GrantRoots = new Map()) {
  const DirectoryEntryStream = createDirectoryStreamClass();
  const streams = createFileStreams(deps);
  const dispose = Symbol.dispose ?? Symbol.for('dispose');

  class Descriptor {
    #ref: FdRef;
    #type: string;
    #mode: Mode;
    #flags: Flags;
    #pinned: boolean;
    /** Internal: wraps a host descriptor this instance owns. `pinned` ones (preopens) are never closed by the guest. */
    static wrap(ref: FdRef, type: string, mode: Mode, flags: Flags, pinned: boolean): Descriptor {
      const d = new Descriptor();
      d.#ref = ref;
      d.#type = type;
      d.#mode = mode;
      d.#flags = flags;
      d.#pinned = pinned;
      return d;
    }
    private constructor() {
      this.#ref = undefined as never;
      this.#type = 'unknown';
      this.#mode = 'ro';
      this.#flags = {};
      this.#pinned = false;
    }
    get #fd(): number {
      return this.#ref.fd();
    }
    #dir(): number {
      if (this.#type !== 'directory') throw 'not-directory';
      return this.#fd;
    }
    #file(): number {
      if (this.#type === 'directory') throw 'is-directory';
      return this.#fd;
    }
    #writable(): void {
      if (this.#mode !== 'rw') throw 'read-only';
    }
    /** This directory as the start of a walk. */
    #at(): At {
      return { fd: this.#dir(), scope: { mode: this.#mode, roots } };
    }
    /** The other descriptor of a two-descriptor call, which must be one of this instance's. */
    static #other(d: unknown): Descriptor {
      if (!(d instanceof Descriptor) || !(#mode in d)) throw 'bad-descriptor';
      return d;
    }

    readViaStream(offset: bigint): unknown {
      this.#file();
      return streams.input(this.#ref.share(), offset);
    }
    writeViaStream(offset: bigint): unknown {
      this.#writable();
      this.#file();
      return streams.output(this.#ref.share(), offset, false);
    }
    appendViaStream(): unknown {
      this.#writable();
      this.#file();
      return streams.output(this.#ref.share(), 0n, true);
    }
    advise(): void {
      this.#file();
    }
    syncData(): void {
      fsCall(() => fdatasyncSync(this.#fd));
    }
    sync(): void {
      fsCall(() => fsyncSync(this.#fd));
    }
    getFlags(): Flags {
      return { ...this.#flags };
    }
    getType(): string {
      return this.#type;
    }
    setSize(size: bigint): void {
      this.#writable();
      const fd = this.#file();
      fsCall(() => ftruncateSync(fd, Number(size)));
    }
    setTimes(atime: Timestamp, mtime: Timestamp): void {
      this.#writable();
      const fd = this.#fd;
      fsCall(() => {
        const st = fstatSync(fd, { bigint: true });
        const sec = (t: Timestamp, cur: bigint) =>
          t.tag === 'now'
            ? Date.now() / 1000
            : t.tag === 'timestamp'
              ? Number(t.val.seconds) + t.val.nanoseconds / 1e9
              : Number(cur) / 1e9;
        futimesSync(fd, sec(atime, st.atimeNs), sec(mtime, st.mtimeNs));
      });
    }
    read(length: bigint, offset: bigint): [Uint8Array, boolean] {
      const fd = this.#file();
      const len = Number(length);
      const bytes = fsCall(() => readAt(fd, len, Number(offset)));
      return [bytes, bytes.length < Math.min(len, 4 * 1024 * 1024)];
    }
    write(buffer: Uint8Array, offset: bigint): bigint {
      this.#writable();
      const fd = this.#file();
      return BigInt(fsCall(() => writeAllAt(fd, buffer, Number(offset))));
    }
    readDirectory(): unknown {
      return DirectoryEntryStream.open(this.#dir());
    }
    stat() {
      const fd = this.#fd;
      return fsCall(() => toDescriptorStat(fstatSync(fd, { bigint: true })));
    }
    statAt(pathFlags: PathFlags, path: string) {
      return atPath(this.#at(), path, Boolean(pathFlags?.symlinkFollow), 'read', (e) => toDescriptorStat(statEnd(e)));
    }
    setTimesAt(pathFlags: PathFlags, path: string, atime: Timestamp, mtime: Timestamp): void {
      atPath(this.#at(), path, Boolean(pathFlags?.symlinkFollow), 'write', (e) => setTimesEnd(e, atime, mtime));
    }
    linkAt(oldPathFlags: PathFlags, oldPath: string, newDescriptor: unknown, newPath: string): void {
      const other = Descriptor.#other(newDescriptor);
      pathOps.link(this.#at(), oldPath, Boolean(oldPathFlags?.symlinkFollow), other.#at(), newPath);
    }
    renameAt(oldPath: string, newDescriptor: unknown, newPath: string): void {
      const other = Descriptor.#other(newDescriptor);
      pathOps.rename(this.#at(), oldPath, other.#at(), newPath);
    }
    symlinkAt(target: string, path: string): void {
      pathOps.symlink(this.#at(), target, path);
    }
    readlinkAt(path: string): string {
      return pathOps.readlink(this.#at(), path);
    }
    createDirectoryAt(path: string): void {
      pathOps.createDirectory(this.#at(), path);
    }
    removeDirectoryAt(path: string): void {
      pathOps.removeDirectory(this.#at(), path);
    }
    unlinkFileAt(path: string): void {
      pathOps.unlinkFile(this.#at(), path);
    }
    isSameObject(other: unknown): boolean {
      if (!(other instanceof Descriptor) || !(#mode in other)) return false;
      const a = fstatSync(this.#fd, { bigint: true });
      const b = fstatSync(other.#fd, { bigint: true });
      return a.dev === b.dev && a.ino === b.ino;
    }
    metadataHash() {
      const s = fsCall(() => fstatSync(this.#fd, { bigint: true }));
      return { upper: s.dev, lower: s.ino };
    }
    metadataHashAt(pathFlags: PathFlags, path: string) {
      return atPath(this.#at(), path, Boolean(pathFlags?.symlinkFollow), 'read', (e) => {
        const s = statEnd(e);
        return { upper: s.dev, lower: s.ino };
      });
    }

    openAt(pathFlags: PathFlags, path: string, openFlags: OpenFlags, flags: Flags): Descriptor {
      const at = this.#at();
      const o = openFlags ?? {};
      const f = flags ?? {};
      const writes = Boolean(o.create || o.truncate || f.write || f.mutateDirectory);
      if (f.requestedWriteSync || f.fileIntegritySync || f.dataIntegritySync) throw 'unsupported';
      let oflags =
        OPEN.nofollow |
        OPEN.nonblock |
        (f.write ? (f.read ? constants.O_RDWR : constants.O_WRONLY) : constants.O_RDONLY);
      if (o.create) oflags |= constants.O_CREAT;
      if (o.exclusive) oflags |= constants.O_EXCL;
      if (o.truncate) oflags |= constants.O_TRUNC;
      if (o.directory) oflags |= constants.O_DIRECTORY;
      let end = walkBeneath(at.fd, path, false, at.scope);
      try {
        let fd: number | undefined;
        for (let tries = 0; fd === undefined; tries++) {
          // before the open (O_TRUNC and O_CREAT act in it): the rights where the path ends
          checkEnd(end, writes ? 'write' : 'read');
          if (end.name === undefined) {
            // the path names a directory the walk already holds ("." or "a/.."): open it again
            if (f.write) throw 'is-directory';
            if (o.create && o.exclusive) throw 'exist';
            fd = openSync(fdPath(end.fd), OPEN.dirReopen);
            break;
          }
          try {
            fd = openSync(fdPath(end.fd, end.name), oflags | (end.mustBeDir ? constants.O_DIRECTORY : 0), 0o666);
          } catch (e) {
            // O_NOFOLLOW met a symlink: follow it beneath the base if asked (an exclusive
            // create never follows), else report it as WASI does
            if ((e as { code?: string }).code !== 'ELOOP' || !pathFlags?.symlinkFollow || (o.create && o.exclusive))
              throw e;
            if (tries >= 40) throw 'loop';
            end = end.followFinal() ?? end;
          }
        }
        const ref = table.adopt(fd);
        try {
          const type = typeOf(fstatSync(fd));
          if (type === 'directory' && f.write) throw 'is-directory';
          // and after it, on what was opened: a nested entry swapped in meanwhile is judged as itself
          const entry = end.name === undefined ? undefined : rootOfFd(roots, fd);
          if (entry === 'none') throw 'access';
          const mode = entry === undefined || entry === 'keep' ? end.mode : entry;
          if (writes && mode !== 'rw') throw 'read-only';
          return Descriptor.wrap(ref, type, mode, { ...f }, false);
        } catch (e) {
          ref.release();
          throw e;
        }
      } catch (e) {
        throw toErrorCode(e);
      } finally {
        end.release();
      }
    }

    [dispose](): void {
      if (!this.#pinned) this.#ref.release();
    }
  }
  return { Descriptor, DirectoryEntryStream };
}
