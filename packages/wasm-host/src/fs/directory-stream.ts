import { opendirSync, type Dir, type Dirent } from 'node:fs';
import { fsCall } from './fs-error.js';
import { fdPath } from './proc-fd.js';

/** The `descriptor-type` of a directory entry or a stat result. */
export function typeOf(
  s: Pick<
    Dirent,
    'isFile' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'
  >,
): string {
  if (s.isFile()) return 'regular-file';
  if (s.isDirectory()) return 'directory';
  if (s.isSymbolicLink()) return 'symbolic-link';
  if (s.isFIFO()) return 'fifo';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice()) return 'character-device';
  if (s.isBlockDevice()) return 'block-device';
  return 'unknown';
}

/** Listings one instance may have open at once (each holds a host descriptor). */
const MAX_LISTINGS = 256;

/**
 * The `directory-entry-stream` class of one plugin instance. A listing opens the directory
 * through the descriptor's magic link (`/proc/self/fd/<fd>`), which the kernel resolves to the
 * open directory itself, so a rename of that directory cannot redirect the listing. Open
 * listings are bounded and closed by `closeAll()` with the rest of the instance's descriptors.
 */
export function createDirectoryStreamClass() {
  const dispose = Symbol.dispose ?? Symbol.for('dispose');
  const live = new Set<Dir>();
  let closed = false;
  return class DirectoryEntryStream {
    #dir: Dir | undefined;
    /** Internal: opens a listing of directory descriptor `fd`. */
    static open(fd: number): DirectoryEntryStream {
      if (closed) throw 'bad-descriptor';
      if (live.size >= MAX_LISTINGS) throw 'insufficient-memory';
      const s = new DirectoryEntryStream();
      const dir = fsCall(() => opendirSync(fdPath(fd)));
      live.add(dir);
      s.#dir = dir;
      return s;
    }
    /** Internal: closes every open listing (the instance is going away). */
    static closeAll(): void {
      closed = true;
      for (const dir of live) {
        try {
          dir.closeSync();
        } catch {
          // already closed
        }
      }
      live.clear();
    }
    readDirectoryEntry(): { type: string; name: string } | undefined {
      const dir = this.#dir;
      if (!dir || !live.has(dir)) throw 'bad-descriptor';
      const entry = fsCall(() => dir.readSync());
      if (entry === null) return undefined;
      return { type: typeOf(entry), name: entry.name };
    }
    [dispose](): void {
      const dir = this.#dir;
      this.#dir = undefined;
      if (!dir || !live.delete(dir)) return;
      try {
        dir.closeSync();
      } catch {
        // closing twice is harmless
      }
    }
  };
}
