import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { openAgent } from '../loop/agent.js';
import type { TimerScheduler } from '../loop/timer-clock.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { nextCronWake, parseCronSchedule } from './cron-schedule.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
};

describe('cron schedules', () => {
  it.each([
    ['*/15 * * * *', 'UTC', '2026-12-02T10:07:30Z', '2026-12-02T10:15:00.000Z'],
    // Friday 09:00 -> Monday (strictly after)
    ['0 9 * * 1-5', 'UTC', '2026-12-04T09:00:00Z', '2026-12-07T09:00:00.000Z'],
    ['0 9 * * *', 'Europe/Berlin', '2026-12-02T10:07:30Z', '2026-12-03T08:00:00.000Z'], // CET is UTC+1 in winter
    ['0 9 * * *', 'Europe/Berlin', '2026-07-02T10:07:30Z', '2026-07-03T07:00:00.000Z'], // CEST is UTC+2 in summer
    ['*/10 * * * * *', 'UTC', '2026-12-02T10:07:30Z', '2026-12-02T10:07:40.000Z'], // six fields: seconds first
    ['@daily', 'UTC', '2026-12-02T10:07:30Z', '2026-12-03T00:00:00.000Z'],
    ['0  0   1 1 *', 'UTC', '2026-12-02T10:07:30Z', '2027-01-01T00:00:00.000Z'], // extra spaces are normalised
  ])('%s in %s after %s -> %s', (cron, tz, after, want) => {
    expect(nextCronWake(parseCronSchedule(cron, tz), new Date(after)).toISOString()).toBe(want);
  });

  it.each([
    ['61 * * * *', 'UTC'],
    ['hello', 'UTC'],
    ['* * *', 'UTC'],
    ['* * * * * * *', 'UTC'],
    ['0 0 31 2 *', 'UTC'],
    ['', 'UTC'],
    ['* * * * *', 'Mars/Olympus'],
    ['* * * * *', ''],
  ])('%j (tz %j) is TIMER_CRON_INVALID', (cron, tz) => {
    expect(codeOf(() => parseCronSchedule(cron, tz))).toBeTrustCode('TIMER_CRON_INVALID');
  });

  it('the error says how to fix it', () => {
    let err: unknown;
    try {
      parseCronSchedule('* * *');
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toMatch(/3 field\(s\), not 5 or 6; write five fields like "\*\/15 \* \* \* \*"/);
    expect((err as { hint?: string }).hint).toMatch(/minute hour day-of-month month day-of-week/);
  });
});

/** A scheduler the test drives by hand: nothing runs until `fire()`, and no wall clock is involved. */
function manualScheduler() {
  const queue = new Map<number, { fn: () => unknown; ms: number }>();
  let n = 0;
  const scheduler: TimerScheduler = {
    setTimeout(fn, ms) {
      queue.set(++n, { fn, ms });
      return n;
    },
    clearTimeout(h) {
      queue.delete(h as number);
    },
  };
  return {
    scheduler,
    delays: () => [...queue.values()].map((q) => q.ms),
    async fire() {
      const due = [...queue.entries()];
      for (const [id] of due) queue.delete(id);
      await Promise.all(due.map(([, q]) => q.fn()));
    },
  };
}

function agentAt(clock: () => Date, scheduler?: TimerScheduler) {
  const path = join(mkdtempSync(join(tmpdir(), 'cron-')), 'a.adf');
  createAdf(path, { template: structuredClone(defaultAgentConfig()) }).close();
  const agent = openAgent(path, { provider: createScriptedProvider(), clock, ...(scheduler ? { scheduler } : {}) });
  agent.adf.files.write(
    'jobs.ts',
    'async function tick(ev: { payload: string }): Promise<void> { await adf.fs_write({ path: "ticks.txt", ' +
      'mode: "append", content: ev.payload + ";" }); }',
  );
  return agent;
}

describe('sys_set_timer kind cron', () => {
  it('stores the schedule and the next wake the library computed; fires by the clock and re-schedules', async () => {
    let now = new Date('2026-12-02T10:07:30Z');
    const s = manualScheduler();
    const agent = agentAt(() => now, s.scheduler);
    const set = await agent.gate.call(
      'sys_set_timer',
      { kind: 'cron', cron: '*/15 * * * *', scope: 'system', lambda: 'jobs.ts:tick', payload: 'q' },
      { origin: 'llm' },
    );
    expect(set).toMatchObject({ nextWakeAt: '2026-12-02T10:15:00.000Z' });
    expect(agent.adf.timers.list()[0]).toMatchObject({
      schedule: { kind: 'cron', cron: '*/15 * * * *', tz: 'UTC' },
      nextWakeAt: '2026-12-02T10:15:00.000Z',
    });
    await agent.start();
    expect(s.delays()).toEqual([7.5 * 60_000]);
    now = new Date('2026-12-02T10:15:00Z');
    await s.fire();
    expect(agent.adf.files.read('ticks.txt')?.content.toString()).toBe('q;');
    expect(agent.adf.timers.list()[0]).toMatchObject({ nextWakeAt: '2026-12-02T10:30:00.000Z', expired: false });
    expect(s.delays()).toEqual([15 * 60_000]);
    agent.close();
  });

  it('missed occurrences fire once, then the next one after now (no catch-up burst)', async () => {
    let now = new Date('2026-12-02T10:00:00Z');
    const agent = agentAt(() => now);
    await agent.gate.call(
      'sys_set_timer',
      { kind: 'cron', cron: '0 * * * *', tz: 'Europe/Berlin', scope: 'system', lambda: 'jobs.ts:tick', payload: 'h' },
      { origin: 'llm' },
    );
    now = new Date('2026-12-02T15:30:00Z'); // five hourly occurrences were missed
    expect((await agent.fireDueTimers()).map((f) => [f.outcome, f.next])).toEqual([
      ['ran', '2026-12-02T16:00:00.000Z'],
    ]);
    expect(await agent.fireDueTimers()).toEqual([]);
    expect(agent.adf.files.read('ticks.txt')?.content.toString()).toBe('h;');
    agent.close();
  });

  it('refuses an invalid expression or time zone, and cron fields on other kinds', async () => {
    const agent = agentAt(() => new Date('2026-12-02T10:00:00Z'));
    await expect(
      agent.gate.call('sys_set_timer', { kind: 'cron', cron: '99 * * * *' }, { origin: 'llm' }),
    ).rejects.toMatchObject({
      code: expect.toBeTrustCode('TIMER_CRON_INVALID'),
      message: expect.stringContaining('write five fields'),
    });
    await expect(
      agent.gate.call('sys_set_timer', { kind: 'cron', cron: '* * * * *', tz: 'Nowhere/City' }, { origin: 'llm' }),
    ).rejects.toHaveTrustCode('TIMER_CRON_INVALID');
    await expect(agent.gate.call('sys_set_timer', { kind: 'cron' }, { origin: 'llm' })).rejects.toHaveTrustCode(
      'TIMER_CRON_INVALID',
    );
    await expect(
      agent.gate.call('sys_set_timer', { kind: 'cron', cron: '* * * * *', ms: 5 }, { origin: 'llm' }),
    ).rejects.toHaveTrustCode('TIMER_INVALID');
    await expect(
      agent.gate.call('sys_set_timer', { kind: 'interval', ms: 5000, cron: '* * * * *' }, { origin: 'llm' }),
    ).rejects.toHaveTrustCode('TIMER_INVALID');
    expect(agent.adf.timers.list()).toEqual([]);
    agent.close();
  });

  it('a stored schedule that no longer parses ends the timer with a log line, never a crash', async () => {
    let now = new Date('2026-12-02T10:00:00Z');
    const agent = agentAt(() => now);
    agent.adf.timers.add({
      schedule: { kind: 'cron', cron: 'garbage' },
      nextWakeAt: '2026-12-02T10:00:00.000Z',
      scope: ['system'],
      lambda: 'jobs.ts:tick',
      payload: 'g',
    });
    now = new Date('2026-12-02T10:00:01Z');
    expect((await agent.fireDueTimers()).map((f) => [f.outcome, f.next])).toEqual([['ran', null]]);
    expect(agent.adf.timers.list()[0]).toMatchObject({ expired: true });
    expect(
      agent.adf.logs
        .list()
        .some((l) => l.event === 'timer.schedule_invalid' && /TIMER_CRON_INVALID|invalid/.test(l.message)),
    ).toBe(true);
    agent.close();
  });
});
