/**
 * Holds at most one thing made ahead of its use (a sandbox's prepared run), until it is taken,
 * or until it has waited `expireMs` unused; then `discard` gets it. The timer does not keep the
 * process alive.
 *
 * @example
 * const ahead = createAhead<Run>(3000, (run) => end(run));
 * ahead.offer(prepareRun());
 * const run = await ahead.take(); // the run, or undefined (none offered, or it failed)
 */
export function createAhead<T>(expireMs: number, discard: (item: T) => Promise<void>) {
  let held: Promise<T | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const take = (): Promise<T | undefined> => {
    const item = held ?? Promise.resolve(undefined);
    held = undefined;
    clearTimeout(timer);
    return item;
  };
  return {
    /** Whether something is held (made or being made). */
    get holding(): boolean {
      return held !== undefined;
    },
    /** Holds `item` (a promise that settles to undefined when making it failed); what was held before is discarded. */
    offer(item: Promise<T | undefined>): void {
      void take().then((t) => (t === undefined ? undefined : discard(t)));
      held = item;
      clearTimeout(timer);
      timer = setTimeout(() => void take().then((t) => (t === undefined ? undefined : discard(t))), expireMs);
      timer.unref();
    },
    take,
  };
}
