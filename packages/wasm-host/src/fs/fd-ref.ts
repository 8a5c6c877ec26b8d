import { closeSync } from 'node:fs';

/**
 * One open host descriptor shared by a guest `descriptor` and the streams made from it. WASI
 * streams are children of their descriptor, but a guest may drop the descriptor first; closing
 * the number then would let the next `open` reuse it, and the stream would read or write some
 * other file. So the number is closed only when its last holder lets go, and every holder asks
 * `fd()` (which throws once released) instead of keeping the number.
 */
export interface FdRef {
  /** The descriptor number; throws `bad-descriptor` once this holder released it. */
  fd(): number;
  /** Another holder of the same descriptor (a stream). */
  share(): FdRef;
  /** Lets go of this holder; the descriptor closes when no holder is left. Idempotent. */
  release(): void;
}

/**
 * The descriptors one plugin instance holds, so they can all be closed when it goes away.
 * Per instance: nothing is shared between plugins.
 */
export interface FdTable {
  adopt(fd: number): FdRef;
  /** Closes every descriptor still open. */
  closeAll(): void;
  readonly size: number;
}

/** Descriptors one instance may hold open at once (each guest open beyond it fails). */
export const MAX_OPEN = 1024;

export function createFdTable(): FdTable {
  const counts = new Map<number, number>();
  // after closeAll every holder is dead: a late release must never close a reused number
  let open = true;
  const close = (fd: number) => {
    counts.delete(fd);
    closeSync(fd);
  };
  const holder = (fd: number): FdRef => {
    let held = true;
    return {
      fd() {
        if (!held || !open) throw 'bad-descriptor';
        return fd;
      },
      share() {
        if (!held || !open) throw 'bad-descriptor';
        counts.set(fd, (counts.get(fd) ?? 0) + 1);
        return holder(fd);
      },
      release() {
        if (!held || !open) return;
        held = false;
        const n = (counts.get(fd) ?? 1) - 1;
        if (n <= 0) close(fd);
        else counts.set(fd, n);
      },
    };
  };
  return {
    adopt(fd) {
      if (!open || counts.size >= MAX_OPEN) {
        closeSync(fd);
        throw open ? 'insufficient-memory' : 'bad-descriptor';
      }
      counts.set(fd, 1);
      return holder(fd);
    },
    closeAll() {
      open = false;
      for (const fd of [...counts.keys()]) {
        try {
          close(fd);
        } catch {
          // already closed by the kernel's view; nothing else to do
        }
      }
    },
    get size() {
      return counts.size;
    },
  };
}
