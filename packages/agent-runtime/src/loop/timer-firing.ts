import type { AdfFile } from '../adf/adf-file.js';
import type { CodeRunner } from '../code/code-runner.js';
import { parseLambdaRef } from '../code/code-runner.js';
import { nextCronWake } from '../tools/cron-schedule.js';

/** What happened to one due timer. */
export interface TimerFiring {
  readonly id: number;
  readonly scope: 'system' | 'agent';
  readonly outcome: 'ran' | 'failed' | 'woke' | 'skipped';
  readonly detail: string;
  /** Next wake time, or null when the timer is done. */
  readonly next: string | null;
}

/**
 * Fires every timer due at `now`, at most once each (the row is advanced before anything runs).
 * `system` timers run their lambda with that file's own authorization; `agent` timers wake the
 * loop only when the agent is autonomous, otherwise they are logged and skipped.
 */
export async function fireDueTimers(input: {
  adf: AdfFile;
  runner: CodeRunner;
  now: Date;
  /** Starts the loop (without awaiting the activation), queues the wake behind a running one, or cannot. */
  wake: (
    text: string,
  ) =>
    | { outcome: 'woke' | 'queued' | 'busy'; detail?: string }
    | Promise<{ outcome: 'woke' | 'queued' | 'busy'; detail?: string }>;
}): Promise<TimerFiring[]> {
  const { adf, runner, now } = input;
  const out: TimerFiring[] = [];
  for (const t of adf.timers.list()) {
    if (t.expired || t.nextWakeAt === null || Date.parse(t.nextWakeAt) > now.getTime()) continue;
    const schedule = t.schedule as { kind?: string; ms?: number; cron?: unknown; tz?: unknown };
    let next: string | null = null;
    let cronError: string | undefined;
    if (schedule.kind === 'interval' && typeof schedule.ms === 'number' && schedule.ms > 0) {
      next = new Date(Math.max(Date.parse(t.nextWakeAt) + schedule.ms, now.getTime() + 1)).toISOString();
    } else if (schedule.kind === 'cron') {
      // The next occurrence strictly after now: missed occurrences (the agent was stopped) fire
      // once, never as a burst of catch-up firings. A schedule that cannot be read ends the timer.
      try {
        if (typeof schedule.cron !== 'string') throw new Error('the stored schedule has no cron expression');
        next = nextCronWake(
          { cron: schedule.cron, tz: typeof schedule.tz === 'string' ? schedule.tz : 'UTC' },
          now,
        ).toISOString();
      } catch (e) {
        cronError = e instanceof Error ? e.message : String(e);
      }
    }
    adf.timers.markFired(t.id, next);
    if (cronError !== undefined)
      adf.logs.add({
        level: 'warn',
        origin: 'timer',
        event: 'timer.schedule_invalid',
        target: String(t.id),
        message: `${cronError}; the timer will not fire again`,
      });
    const scope = t.scope.includes('system') ? 'system' : 'agent';
    let outcome: TimerFiring['outcome'];
    let detail: string;
    if (scope === 'system') {
      try {
        const r = await runner.runSystemLambda(parseLambdaRef(t.lambda ?? ''), { timer: t.id, payload: t.payload });
        outcome = r.ok ? 'ran' : 'failed';
        detail = r.ok ? 'lambda completed' : `${r.code}: ${r.message}`;
      } catch (e) {
        outcome = 'failed';
        detail = e instanceof Error ? e.message : String(e);
      }
    } else if (adf.config().autonomous) {
      try {
        const w = await input.wake(
          `[timer ${t.id}] An automated timer, not a message from your owner. ${t.payload ?? ''}`,
        );
        outcome = w.outcome === 'busy' ? 'skipped' : 'woke';
        detail =
          w.detail ??
          (w.outcome === 'woke'
            ? 'woke the loop'
            : w.outcome === 'queued'
              ? 'queued behind the running activation'
              : 'the loop is busy');
      } catch (e) {
        outcome = 'failed';
        detail = e instanceof Error ? e.message : String(e);
      }
    } else {
      outcome = 'skipped';
      detail = 'autonomous mode is off: agent timers do not start the loop';
    }
    adf.logs.add({
      level: outcome === 'failed' ? 'warn' : 'info',
      origin: 'timer',
      event: `timer.${outcome}`,
      target: String(t.id),
      message: detail,
    });
    out.push({ id: t.id, scope, outcome, detail, next });
  }
  return out;
}
