import type { AdfTimers } from '../adf/adf-records.js';
import { checkOptions } from '../options/strict-options.js';
import { timerClockOptionsSchema } from '../triggers/trigger-options.js';

/** Schedules one callback; the runtime's only use of host timers, injectable for tests. */
export interface TimerScheduler {
  /** `fn` returns the firing's promise, which a test scheduler may await; Node's timers ignore it. */
  setTimeout(fn: () => unknown, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd so an armed agent never keeps the process alive on its own. */
export const nodeTimerScheduler: TimerScheduler = Object.freeze({
  setTimeout(fn: () => unknown, ms: number) {
    const h = setTimeout(fn, ms);
    h.unref?.();
    return h;
  },
  clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
});

/** Longest single delay Node's setTimeout accepts; farther timers re-arm when it passes. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** Retry delay when a firing left the earliest timer where it was (e.g. the file was busy). */
export const STUCK_RETRY_MS = 1000;

/** Fires an agent's timers by itself while armed. */
export interface TimerClock {
  /** Starts (or restarts) the clock: schedules the next due timer. */
  arm(): void;
  /** Re-computes the next wake after a change (no-op when disarmed). */
  rearm(): void;
  /** Stops the clock; a firing in progress finishes. */
  disarm(): void;
  armed(): boolean;
  /** The wake time scheduled now, or null. */
  scheduledFor(): string | null;
}

/** Options of {@link createTimerClock}. */
export interface TimerClockOptions {
  readonly timers: Pick<AdfTimers, 'list'>;
  readonly clock: () => Date;
  readonly scheduler?: TimerScheduler;
  /** Fires the due timers (the agent's fireDueTimers); errors are the caller's to log. */
  readonly fire: () => Promise<unknown>;
  readonly onError?: (error: unknown) => void;
}

/**
 * Creates the clock that makes timers fire by themselves: one scheduled callback at the earliest
 * `nextWakeAt`, re-armed after each firing and after every timer change. Firings never overlap:
 * a wake during a firing re-arms once the firing ends.
 *
 * @example
 * const clock = createTimerClock({ timers: adf.timers, clock: () => new Date(), fire: () => agent.fireDueTimers() });
 * clock.arm();
 */
export function createTimerClock(input: TimerClockOptions): TimerClock {
  const options = checkOptions('createTimerClock', timerClockOptionsSchema, input);
  const scheduler = options.scheduler ?? nodeTimerScheduler;
  let armed = false;
  let handle: unknown;
  let at: string | null = null;
  let firing = false;
  // The wake time of the last firing: if it is still the earliest afterwards, the firing failed
  // to advance it, and the clock must not spin on it.
  let lastFired: string | null = null;

  const clear = () => {
    if (handle !== undefined) scheduler.clearTimeout(handle);
    handle = undefined;
    at = null;
  };
  const schedule = () => {
    clear();
    if (!armed || firing) return;
    let next = Number.POSITIVE_INFINITY;
    try {
      for (const t of options.timers.list()) {
        if (t.expired || t.nextWakeAt === null) continue;
        const ms = Date.parse(t.nextWakeAt);
        if (Number.isFinite(ms) && ms < next) next = ms;
      }
    } catch (e) {
      options.onError?.(e);
      return;
    }
    if (next === Number.POSITIVE_INFINITY) return;
    at = new Date(next).toISOString();
    const floor = at === lastFired ? STUCK_RETRY_MS : 0;
    const delay = Math.min(Math.max(floor, next - options.clock().getTime()), MAX_TIMER_DELAY_MS);
    handle = scheduler.setTimeout(() => wake(), delay);
  };
  const wake = async () => {
    handle = undefined;
    lastFired = at;
    at = null;
    if (!armed) return;
    firing = true;
    try {
      await options.fire();
    } catch (e) {
      options.onError?.(e);
    } finally {
      firing = false;
    }
    schedule();
  };

  return {
    arm() {
      armed = true;
      schedule();
    },
    rearm: schedule,
    disarm() {
      armed = false;
      clear();
    },
    armed: () => armed,
    scheduledFor: () => at,
  };
}
