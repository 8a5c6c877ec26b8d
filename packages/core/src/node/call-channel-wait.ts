import { CALL_STATE, type CallChannel, isReplyReady, readCallFrame } from './call-channel.js';

// Atomics.waitAsync exists on Node 20 (V8 11), but the project's ES2022 lib does not type it.
type WaitAsync = (
  a: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };

/**
 * How long one wait lasts before the state word is looked at again, on either side: a wake-up
 * that never reaches a thread (seen once under heavy load, with the answer already written) then
 * costs one slice, not the call; and a worker's `terminate()` lands between two waits.
 */
export const CALL_WAIT_SLICE_MS = 50;
/**
 * The bound callers put on `waitForReply` when the waiting thread is a host's event loop: it is
 * never held longer than this by one call, spin included, however long the call runs.
 */
export const MAX_SYNC_WAIT_MS = 2;

export interface CallWaitOptions {
  /**
   * How long the caller blocks its own thread for the answer (no event-loop turn), spin included;
   * default 1 ms; 0: not at all.
   */
  readonly syncWaitMs?: number;
  /**
   * Of that, how long it busy-polls the state word before it sleeps in `Atomics.wait`, in µs;
   * default 0. Polling saves the wake-up through the scheduler when the answer comes within it.
   */
  readonly spinMicros?: number;
}

/**
 * Caller side, right after `postCall`: waits for the answer on this thread for at most
 * `syncWaitMs`. Returns true when the answer is there.
 *
 * @example
 * postCall(ch, request, 'json');
 * if (waitForReply(ch, { syncWaitMs: 1 })) return readReply(ch);
 */
export function waitForReply(ch: CallChannel, options: CallWaitOptions = {}): boolean {
  const budgetMs = Math.max(options.syncWaitMs ?? 1, 0);
  if (budgetMs === 0) return isReplyReady(ch);
  const start = performance.now();
  const spinEnd = start + Math.min((options.spinMicros ?? 0) / 1000, budgetMs);
  while (performance.now() < spinEnd) if (Atomics.load(ch.ctl, 0) !== CALL_STATE.REQUEST) return isReplyReady(ch);
  const left = budgetMs - (performance.now() - start);
  if (left > 0) Atomics.wait(ch.ctl, 0, CALL_STATE.REQUEST, left);
  return isReplyReady(ch);
}

/**
 * Caller side: waits for the answer without blocking this thread (`Atomics.waitAsync`, in
 * `CALL_WAIT_SLICE_MS` slices). Resolves true once the answer is there, false as soon as
 * `stillWaiting()` turns false (the call timed out or the worker died).
 *
 * @example
 * if (await awaitReply(ch, () => !lost)) settle(readReply(ch));
 */
export function awaitReply(ch: CallChannel, stillWaiting: () => boolean): Promise<boolean> {
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  return new Promise<boolean>((resolve) => {
    const check = (): void => {
      const waiting = stillWaiting();
      const s = Atomics.load(ch.ctl, 0);
      if (!waiting || s === CALL_STATE.REPLY) {
        resolve(waiting);
        return;
      }
      const w = waitAsync(ch.ctl, 0, s, CALL_WAIT_SLICE_MS);
      if (w.async) void w.value.then(check);
      else check();
    };
    check();
  });
}

export interface NextCallOptions {
  /**
   * After an answer, how long the worker busy-polls for the next call before it sleeps, in µs;
   * default 0. It burns that much CPU after each call that has no successor, and saves the
   * wake-up through the scheduler for one that follows within it.
   */
  readonly spinMicros?: number;
}

/**
 * Worker side: blocks until the next call and returns it. Sleeps in `Atomics.wait` slices, on
 * the state it saw last, so it never spins while the caller reads an answer (beyond `spinMicros`).
 *
 * @example
 * for (;;) postReply(ch, handle(nextCall(ch)), 'json');
 */
export function nextCall<T>(ch: CallChannel, options: NextCallOptions = {}): T {
  const spinEnd = options.spinMicros ? performance.now() + options.spinMicros / 1000 : 0;
  for (;;) {
    const s = Atomics.load(ch.ctl, 0);
    if (s === CALL_STATE.REQUEST) return readCallFrame<T>(ch);
    if (spinEnd === 0 || performance.now() >= spinEnd) Atomics.wait(ch.ctl, 0, s, CALL_WAIT_SLICE_MS);
  }
}
