import { createDescriptorClass } from './descriptor.js';
import { createFdTable, type FdRef } from './fd-ref.js';
import type { StreamDeps } from './fs-streams.js';
import type { GrantRoots } from './grant-roots.js';

/** One preopen as the instance receives it: a directory descriptor the host pinned at load. */
export interface PinnedPreopen {
  readonly guestPath: string;
  readonly mode: 'ro' | 'rw';
  /** The host descriptor; owned by the host, which closes it when the plugin goes away. */
  readonly fd: number;
}

/** A holder of a pinned descriptor: the guest can use it but never close it. */
function pinnedRef(fd: number): FdRef {
  const ref: FdRef = { fd: () => fd, share: () => ref, release: () => undefined };
  return ref;
}

/**
 * trust's own `wasi:filesystem` (`types` + `preopens`) for one plugin instance. It replaces
 * preview2-shim's descriptors, which resolve guest paths as host path strings (`realpath`, then
 * `lstat` per segment in JavaScript, then open the absolute path: a window a concurrent rename or
 * symlink swap gets through). Here every guest path is resolved beneath a directory descriptor
 * the host opened at load, one component at a time (walk.ts). Nothing is shared with other
 * instances: the class, the descriptor table and the streams are created here, per call.
 *
 * `close()` closes what the guest still holds (in a worker, Node also closes every descriptor the
 * worker opened when it exits: `trackUnmanagedFds`). `deps` are the `wasi:io` classes of the import object the result
 * joins (jco checks streams with `instanceof` against them). `roots` are the plugin's nested entries
 * (`pinned.roots`): each grant is its own preopen, and a path reached through an outer one takes the
 * rights of the innermost entry it passes (empty: no entry lies inside another).
 *
 * @example
 * const pinned = pinGrantDirs(parseCapabilities(['fs:ro:/srv/data']).fsGrants);
 * const preopens = pinned.dirs.flatMap((d) =>
 *   d.mode === 'none' ? [] : [{ guestPath: d.path, mode: d.mode, fd: d.fd }],
 * );
 * const fs = createGuestFilesystem(preopens, deps, pinned.roots);
 * imports['wasi:filesystem/types'] = fs.types;
 * imports['wasi:filesystem/preopens'] = fs.preopens;
 * // when the instance is gone: fs.close(); pinned.close();
 */
export function createGuestFilesystem(
  preopens: readonly PinnedPreopen[],
  deps: StreamDeps,
  roots: GrantRoots = new Map(),
) {
  const table = createFdTable();
  const { Descriptor, DirectoryEntryStream } = createDescriptorClass(table, deps, roots);
  const dirs = preopens.map(
    (p) =>
      [
        Descriptor.wrap(pinnedRef(p.fd), 'directory', p.mode, { read: true, mutateDirectory: p.mode === 'rw' }, true),
        p.guestPath,
      ] as const,
  );
  return {
    types: {
      Descriptor,
      DirectoryEntryStream,
      /** The `error-code` behind a stream's `last-operation-failed` error, if it came from a file. */
      filesystemErrorCode(err: { payload?: { fsErrorCode?: string } } | undefined): string | undefined {
        return err?.payload?.fsErrorCode;
      },
    },
    preopens: { getDirectories: () => dirs.map(([d, p]) => [d, p]) },
    /** Descriptors the guest holds open now (not counting preopens). */
    openCount: () => table.size,
    /** Closes every descriptor the guest opened (never the pinned preopens). */
    close: () => {
      table.closeAll();
      DirectoryEntryStream.closeAll();
    },
  };
}
