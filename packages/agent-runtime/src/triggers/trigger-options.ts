import { z } from 'zod';
import { count, fn, positive, withMethods } from '../options/strict-options.js';

const depth = (what: string) => z.number().int().min(0).max(2_147_483_647).describe(what);

/** The strict schema of a partial {@link TriggerLimits} (`triggerLimits`, `limits`). */
export const triggerLimitsSchema = z
  .object({
    maxDepth: depth('how deep a chain of firings may go, e.g. 3').optional(),
    maxPerTrigger: depth('firings of one trigger per window, e.g. 20').optional(),
    maxTotal: depth('firings of all triggers per window, e.g. 100').optional(),
    windowMs: positive('the sliding window in ms, e.g. 60000').optional(),
    maxQueue: count('events waiting to be dispatched, e.g. 500').optional(),
  })
  .strict();

/** The strict schema of `createTriggerDispatcher`'s options, checked once at the boundary. */
export const triggerDispatcherOptionsSchema = z
  .object({
    adf: withMethods("the agent's open .adf file, e.g. openAdf('agent.adf')", 'close'),
    runner: withMethods('the lambda runner, e.g. createCodeRunner({ … })', 'runSystemLambda'),
    wake: fn('wakes the loop with a framed text, e.g. (text) => ({ woke: true })'),
    clock: fn('clock, e.g. () => new Date()').optional(),
    limits: triggerLimitsSchema.optional().describe('bounds on firings, e.g. { maxDepth: 3, windowMs: 60000 }'),
    agentId: z.string().optional().describe('agent id for audit principals, e.g. "helper"'),
    scheduler: withMethods(
      'schedules timed releases, e.g. nodeTimerScheduler',
      'setTimeout',
      'clearTimeout',
    ).optional(),
  })
  .strict()
  .describe('createTriggerDispatcher options, e.g. { adf, runner, wake }');

/** The strict schema of `createTimerClock`'s options, checked once at the boundary. */
export const timerClockOptionsSchema = z
  .object({
    timers: withMethods('the timers to watch, e.g. adf.timers', 'list'),
    clock: fn('clock, e.g. () => new Date()'),
    scheduler: withMethods('schedules the wake, e.g. nodeTimerScheduler', 'setTimeout', 'clearTimeout').optional(),
    fire: fn('fires the due timers, e.g. () => agent.fireDueTimers()'),
    onError: fn('receives firing errors, e.g. (e) => console.error(e)').optional(),
  })
  .strict()
  .describe('createTimerClock options, e.g. { timers: adf.timers, clock, fire }');
