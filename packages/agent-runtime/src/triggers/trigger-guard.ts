import { allow, deny, type Decision } from '@trust/core';
import { checkOptions } from '../options/strict-options.js';
import { triggerGuardLimitsSchema } from '../options/trigger-guard-options.js';

/** Bounds on trigger firings. Every bound fails closed: the firing is refused, logged and audited. */
export interface TriggerLimits {
  /** How deep a chain of firings may go (a firing whose effects fire another is one level deeper). Default 3. */
  readonly maxDepth: number;
  /** Firings of one trigger per window. Default 20. */
  readonly maxPerTrigger: number;
  /** Firings of all triggers of the agent per window. Default 100. */
  readonly maxTotal: number;
  /** The sliding window, in ms. Default 60 000. */
  readonly windowMs: number;
  /** Events waiting to be dispatched; beyond this, new events are dropped (logged). Default 500. */
  readonly maxQueue: number;
}

/** The defaults of {@link TriggerLimits}. */
export const DEFAULT_TRIGGER_LIMITS: TriggerLimits = Object.freeze({
  maxDepth: 3,
  maxPerTrigger: 20,
  maxTotal: 100,
  windowMs: 60_000,
  maxQueue: 500,
});

/**
 * What caused an event: nothing (depth 0, an outside event), or the firings whose effects raised
 * it, outermost first (trigger indexes in the config).
 */
export interface TriggerCause {
  readonly depth: number;
  readonly chain: readonly number[];
}

/** The root cause: an event from outside any firing. */
export const ROOT_CAUSE: TriggerCause = Object.freeze({ depth: 0, chain: Object.freeze([]) });

/** Rate and recursion bookkeeping of one agent's triggers. */
export interface TriggerGuard {
  /**
   * Whether trigger `index` may fire for an event with this cause, now. Order: self, depth, per-trigger rate, total
   * rate.
   */
  evaluate(index: number, cause: TriggerCause): Decision;
  /** Counts one firing of `index` (call only after an allow). */
  record(index: number): void;
}

/**
 * Creates the guard that keeps triggers from feeding themselves: a trigger never fires on an
 * event its own firing caused (directly or through other triggers), chains stop at
 * `maxDepth`, and each trigger and the agent as a whole have a sliding-window rate cap.
 *
 * @example
 * const guard = createTriggerGuard(DEFAULT_TRIGGER_LIMITS, () => new Date());
 * guard.evaluate(0, { depth: 1, chain: [0] }); // deny TRIGGER_SELF
 */
export function createTriggerGuard(limits: TriggerLimits, clock: () => Date): TriggerGuard {
  checkOptions('createTriggerGuard', triggerGuardLimitsSchema, limits);
  const perTrigger = new Map<number, number[]>();
  let total: number[] = [];
  const recent = (times: number[], now: number) => times.filter((t) => t > now - limits.windowMs);
  return {
    evaluate(index, cause) {
      if (cause.chain.includes(index)) {
        return deny(
          'TRIGGER_SELF',
          `trigger #${index} was raised by its own firing (chain ${cause.chain.map((i) => `#${i}`).join(' → ')})`,
          {
            rule: 'trigger-no-self',
            hint: 'a trigger never re-fires on its own effects; narrow the filter or use a timer',
          },
        );
      }
      if (cause.depth >= limits.maxDepth) {
        return deny(
          'TRIGGER_DEPTH',
          `trigger chain depth ${cause.depth} reached the limit of ${limits.maxDepth} ` +
            `(chain ${cause.chain.map((i) => `#${i}`).join(' → ')})`,
          { rule: 'trigger-depth' },
        );
      }
      const now = clock().getTime();
      const mine = recent(perTrigger.get(index) ?? [], now);
      perTrigger.set(index, mine);
      if (mine.length >= limits.maxPerTrigger) {
        return deny(
          'TRIGGER_RATE',
          `trigger #${index} fired ${mine.length} times in ${limits.windowMs} ms (limit ${limits.maxPerTrigger})`,
          { rule: 'trigger-rate', hint: 'narrow the trigger filter' },
        );
      }
      total = recent(total, now);
      if (total.length >= limits.maxTotal) {
        return deny(
          'TRIGGER_RATE',
          `the agent's triggers fired ${total.length} times in ${limits.windowMs} ms (limit ${limits.maxTotal})`,
          { rule: 'trigger-rate-total' },
        );
      }
      return allow('trigger-guard');
    },
    record(index) {
      const now = clock().getTime();
      perTrigger.set(index, [...(perTrigger.get(index) ?? []), now]);
      total.push(now);
    },
  };
}
