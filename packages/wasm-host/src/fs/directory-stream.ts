import { opendirSync, type Dir, type Dirent } from 'node:fs';
import { fsCall } from './fs-error.js';
import { fdPath } from './proc-fd.js';

/** The `descriptor-type` of a directory entry or a stat result. */
export function typeOf(s: Pick<Dirent, 'isFile' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>): string {
  if (s.isFile()) return 'regular-file';
  if (s.isDirectory()) return 'directory';
  if (s.isSymbolicLink()) return 'symbolic-link';
  if (s.isFIFO()) return 'fifo';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice()) return 'character-device';
  if (s.isBlockDevice()) return 'block-device';
  return 'unknown';
}

/**
 * The `directory-entry-stream` class of one plugin instance. A listing opens the directory
 * through the descriptor's magic link (`/proc/self/fd/<fd>`), which the kernel resolves to the
 * open directory itself, so a rename of that directory cannot redirect the listing.
 */
export function createDirectoryStreamClass() {
  const dispose = Symbol.dispose ?? Symbol.for('dispose');
  return class DirectoryEntryStream {
    #dir: Dir | undefined;
    /** Internal: opens a listing of directory descriptor `fd`. */
    static open(fd: number): DirectoryEntryStream {
      const s = new DirectoryEntryStream();
      s.#dir = fsCall(() => opendirSync(fdPath(fd)));
      return s;
    }
    readDirectoryEntry(): { type: string; name: string } | undefined {
      const dir = this.#dir;
      if (!dir) throw 'bad-descriptor';
      const entry = fsCall(() => dir.readSync());
      if (entry === null) return undefined;
      return { type: typeOf(entry), name: entry.name };
    }
    [dispose](): void {
      const dir = this.#dir;
      this.#dir = undefined;
      try {
        dir?.closeSync();
      } catch {
        // closing twice is harmless
      }
    }
  };
}
