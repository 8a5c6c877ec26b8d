// Keeps the live event stream open: reconnect with a growing pause when it drops, stop for good
// on a 401 (the token is no longer valid) or when the signal aborts. Time is injected (`sleep`),
// so the schedule is unit-tested without a clock.

export const FIRST_PAUSE_MS = 1000;
export const MAX_PAUSE_MS = 30_000;

export interface LiveStreamDeps {
  /** Reads the stream until it ends (resolves) or fails (rejects). */
  connect(signal: AbortSignal): Promise<void>;
  /** True when a connect error means "not authorised": no retry. */
  isDenied(error: unknown): boolean;
  onLive(live: boolean): void;
  onDenied(): void;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The pause before the next attempt: doubles from 1 s up to 30 s; a stream that was up resets it. */
export function nextPause(previous: number, wasUp: boolean): number {
  if (wasUp) return FIRST_PAUSE_MS;
  return Math.min(previous * 2, MAX_PAUSE_MS);
}

/**
 * Runs until `signal` aborts or the server answers 401. Each time the stream ends or fails it
 * waits, then reconnects.
 */
export async function runLiveStream(deps: LiveStreamDeps, signal: AbortSignal): Promise<void> {
  let pause = FIRST_PAUSE_MS;
  let first = true;
  while (!signal.aborted) {
    let up = false;
    deps.onLive(true);
    try {
      await deps.connect(signal);
      up = true;
    } catch (error) {
      if (deps.isDenied(error)) {
        deps.onLive(false);
        deps.onDenied();
        return;
      }
    }
    deps.onLive(false);
    if (signal.aborted) return;
    pause = first ? FIRST_PAUSE_MS : nextPause(pause, up);
    first = false;
    await deps.sleep(pause, signal);
  }
}

/** A sleep that ends early when the signal aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
