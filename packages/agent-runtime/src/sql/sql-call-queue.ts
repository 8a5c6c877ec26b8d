import { busyError } from './sql-stop-errors.js';

/**
 * One statement at a time per agent, in arrival order, with at most `maxQueue` waiting behind the
 * running one; a call beyond that is refused with `SQL_BUSY` at once instead of growing the queue.
 * A failed call does not stop the ones behind it.
 */
export function createSqlCallQueue(maxQueue: number): <T>(run: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  return <T>(run: () => Promise<T>): Promise<T> => {
    if (waiting >= maxQueue) return Promise.reject(busyError(waiting));
    waiting++;
    const next = tail.then(run).finally(() => {
      waiting--;
    });
    tail = next.catch(() => undefined);
    return next;
  };
}
