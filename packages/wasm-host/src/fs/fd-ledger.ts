import { closeSync } from 'node:fs';

/** Descriptors one plugin worker may hold open at once (also its open-file limit). */
export const LEDGER_SLOTS = 1024;

/**
 * A record, in shared memory, of the host descriptors a plugin's worker has open. A worker that
 * is terminated (deadline, dispose) runs no cleanup, and descriptors belong to the process, not
 * the thread: without this, each terminated plugin would leak what its guest had open. The
 * worker records a descriptor right after opening it and forgets it right before closing it;
 * after the worker has stopped, the host closes whatever is still recorded (`closeLedger`).
 * Forget-then-close means a crash in between leaks one descriptor; it never closes a number that
 * was already closed and reused.
 */
export function createFdLedger(buffer: SharedArrayBuffer): { add(fd: number): void; remove(fd: number): void } {
  const slots = new Int32Array(buffer);
  const where = new Map<number, number>();
  let hint = 0;
  return {
    add(fd) {
      for (let n = 0; n < slots.length; n++) {
        const i = (hint + n) % slots.length;
        if (Atomics.compareExchange(slots, i, 0, fd + 1) === 0) {
          where.set(fd, i);
          hint = i + 1;
          return;
        }
      }
      throw 'insufficient-memory'; // the guest holds LEDGER_SLOTS descriptors already
    },
    remove(fd) {
      const i = where.get(fd);
      if (i === undefined) return;
      where.delete(fd);
      Atomics.store(slots, i, 0);
    },
  };
}

/** A ledger buffer for one worker. */
export function newLedgerBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(LEDGER_SLOTS * 4);
}

/** Closes every descriptor still recorded. Call only once the worker has stopped. */
export function closeLedger(buffer: SharedArrayBuffer): number {
  const slots = new Int32Array(buffer);
  let closed = 0;
  for (let i = 0; i < slots.length; i++) {
    const v = Atomics.exchange(slots, i, 0);
    if (v === 0) continue;
    try {
      closeSync(v - 1);
      closed++;
    } catch {
      // already closed
    }
  }
  return closed;
}
