import type { TimerScheduler } from '../loop/timer-clock.js';
import type { TriggerEvent } from './trigger-event.js';
import type { TriggerCause } from './trigger-guard.js';
import type { TriggerConfig } from './trigger-match.js';

/** A trigger's timing option (at most one per trigger; the config schema enforces it). */
export type TriggerTiming =
  | { readonly kind: 'debounce'; readonly ms: number }
  | { readonly kind: 'interval'; readonly ms: number }
  | { readonly kind: 'batch'; readonly ms: number; readonly count: number };

/** Events one batch holds at most (also the default `batch_count`). */
export const MAX_TRIGGER_BATCH = 1000;

/** The timing option of a trigger, or undefined when it fires on every event. */
export function triggerTimingOf(t: TriggerConfig): TriggerTiming | undefined {
  if (t.debounce_ms !== undefined) return { kind: 'debounce', ms: t.debounce_ms };
  if (t.interval_ms !== undefined) return { kind: 'interval', ms: t.interval_ms };
  if (t.batch_ms !== undefined)
    return { kind: 'batch', ms: t.batch_ms, count: Math.min(t.batch_count ?? MAX_TRIGGER_BATCH, MAX_TRIGGER_BATCH) };
  return undefined;
}

/** One held event and what caused it. */
export interface HeldEvent {
  readonly event: TriggerEvent;
  readonly cause: TriggerCause;
}

/** A firing the timing decided on: the trigger (as configured when the events arrived) and the events. */
export interface TimedFiring {
  readonly index: number;
  readonly trigger: TriggerConfig;
  readonly timing: TriggerTiming;
  readonly events: readonly HeldEvent[];
}

/** Holds events of timed triggers and releases them as firings. */
export interface TriggerTimer {
  /**
   * Offers a matching event. `now`: fire it at once (an interval trigger outside its interval);
   * `held`: it was held, and a later firing will carry it.
   */
  offer(index: number, trigger: TriggerConfig, timing: TriggerTiming, held: HeldEvent): 'now' | 'held';
  /** Events held now, over all triggers. */
  held(): number;
  /** Drops every held event and cancels every scheduled release. */
  close(): void;
}

interface Slot {
  trigger: TriggerConfig;
  timing: TriggerTiming;
  events: HeldEvent[];
  handle: unknown;
}

/**
 * Creates the holder behind `debounce_ms`, `interval_ms` and `batch_ms` (+`batch_count`):
 * - debounce: every event restarts the wait; when it ends, one firing with the latest event;
 * - interval: the first event fires at once; events within the interval are held and the latest
 *   fires once when the interval ends (so the last state is never lost);
 * - batch: events are collected for `ms` after the first one (or until `count` are held), then
 *   one firing carries all of them.
 * Released firings go to `release`, whose promise the scheduler callback returns (a test
 * scheduler can await it). All waiting uses the injected scheduler; nothing here reads a wall clock
 * except through `clock`.
 */
export function createTriggerTimer(options: {
  scheduler: TimerScheduler;
  clock: () => Date;
  release: (firing: TimedFiring) => Promise<unknown>;
}): TriggerTimer {
  const { scheduler, clock } = options;
  const slots = new Map<number, Slot>();
  const lastFired = new Map<number, number>();
  let closed = false;

  const release = (index: number, slot: Slot): Promise<unknown> => {
    if (closed) return Promise.resolve();
    if (slot.timing.kind === 'interval') lastFired.set(index, clock().getTime());
    const events = slot.timing.kind === 'batch' ? slot.events : slot.events.slice(-1);
    return options.release({ index, trigger: slot.trigger, timing: slot.timing, events });
  };
  /** Schedules the release of the slot held at `index` now (if it is still that slot then). */
  const schedule = (index: number, slot: Slot, ms: number): unknown =>
    scheduler.setTimeout(
      () => {
        if (slots.get(index) !== slot) return Promise.resolve();
        slots.delete(index);
        return release(index, slot);
      },
      Math.max(0, ms),
    );

  return {
    offer(index, trigger, timing, held) {
      if (closed) return 'held';
      let slot = slots.get(index);
      // A changed trigger at this index starts over: held events belong to the trigger they matched.
      if (slot && JSON.stringify(slot.trigger) !== JSON.stringify(trigger)) {
        scheduler.clearTimeout(slot.handle);
        slots.delete(index);
        slot = undefined;
      }
      switch (timing.kind) {
        case 'debounce': {
          if (slot) scheduler.clearTimeout(slot.handle);
          const next: Slot = { trigger, timing, events: [held], handle: undefined };
          slots.set(index, next);
          next.handle = schedule(index, next, timing.ms);
          return 'held';
        }
        case 'interval': {
          const now = clock().getTime();
          const last = lastFired.get(index);
          if (!slot && (last === undefined || now - last >= timing.ms)) {
            lastFired.set(index, now);
            return 'now';
          }
          if (slot) {
            slot.events = [held];
            return 'held';
          }
          const next: Slot = { trigger, timing, events: [held], handle: undefined };
          slots.set(index, next);
          next.handle = schedule(index, next, (last ?? now) + timing.ms - now);
          return 'held';
        }
        case 'batch': {
          if (!slot) {
            slot = { trigger, timing, events: [], handle: undefined };
            slots.set(index, slot);
            slot.handle = schedule(index, slot, timing.ms);
          }
          slot.events.push(held);
          if (slot.events.length >= timing.count) {
            // Full: detach it (the next event starts a new batch) and release it through the
            // scheduler (delay 0), never inside the dispatch of the event that filled it, so
            // firings keep their one-at-a-time order.
            const full = slot;
            scheduler.clearTimeout(full.handle);
            slots.delete(index);
            scheduler.setTimeout(() => release(index, full), 0);
          }
          return 'held';
        }
      }
    },
    held: () => [...slots.values()].reduce((n, s) => n + s.events.length, 0),
    close() {
      closed = true;
      for (const s of slots.values()) scheduler.clearTimeout(s.handle);
      slots.clear();
    },
  };
}

/** The cause of a firing that carries several events: the deepest depth and every chain member. */
export function combineCauses(causes: readonly TriggerCause[]): TriggerCause {
  const chain: number[] = [];
  for (const c of causes) for (const i of c.chain) if (!chain.includes(i)) chain.push(i);
  return { depth: Math.max(0, ...causes.map((c) => c.depth)), chain };
}

/** The one event a timed firing hands on: the latest event, or for a batch, all of them in `data.batch`. */
export function timedEventOf(firing: TimedFiring): TriggerEvent {
  const last = firing.events[firing.events.length - 1]!.event;
  if (firing.timing.kind !== 'batch') return last;
  return {
    type: last.type,
    fields: last.fields,
    data: {
      count: firing.events.length,
      batch: firing.events.map((h) => ({ fields: h.event.fields, data: h.event.data })),
    },
  };
}
