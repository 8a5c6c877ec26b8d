import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { openAgent } from './agent.js';
import {
  MAX_TIMER_DELAY_MS,
  STUCK_RETRY_MS,
  createTimerClock,
  nodeTimerScheduler,
  type TimerScheduler,
} from './timer-clock.js';

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
    /** Runs every scheduled callback and awaits the firings they started. */
    async fire() {
      const due = [...queue.entries()];
      for (const [id] of due) queue.delete(id);
      await Promise.all(due.map(([, q]) => q.fn()));
    },
  };
}

function file(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'timer-clock-')), 'a.adf');
  createAdf(path, { template: structuredClone(defaultAgentConfig()) }).close();
  return path;
}

describe('timer clock', () => {
  it('fires timers by itself once started, re-arms after each firing and each timer change, and stops', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const s = manualScheduler();
    const agent = openAgent(file(), { provider: createScriptedProvider(), clock: () => now, scheduler: s.scheduler });
    agent.adf.files.write(
      'jobs.js',
      'async function tick(ev) { await adf.fs_write({ path: "beats.txt", mode: "append", content: ev.payload ' +
        '+ ";" }); }',
    );
    await agent.gate.call(
      'sys_set_timer',
      { kind: 'interval', ms: 60_000, scope: 'system', lambda: 'jobs.js:tick', payload: 'beat' },
      { origin: 'llm' },
    );
    // Not started: nothing is scheduled.
    expect(s.delays()).toEqual([]);
    expect(agent.nextTimerWake()).toBeNull();

    await agent.start();
    expect(agent.started()).toBe(true);
    expect(s.delays()).toEqual([60_000]);
    expect(agent.nextTimerWake()).toBe('2026-01-01T00:01:00.000Z');

    now = new Date('2026-01-01T00:01:00Z');
    await s.fire();
    expect(agent.adf.files.read('beats.txt')?.content.toString()).toBe('beat;');
    expect(s.delays()).toEqual([60_000]); // re-armed for the next interval
    expect(agent.nextTimerWake()).toBe('2026-01-01T00:02:00.000Z');

    // A sooner timer re-arms the clock; deleting it goes back to the interval.
    const { id } = (await agent.gate.call(
      'sys_set_timer',
      { kind: 'delay', ms: 5_000, scope: 'system', lambda: 'jobs.js:tick', payload: 'soon' },
      { origin: 'llm' },
    )) as { id: number };
    expect(s.delays()).toEqual([5_000]);
    await agent.gate.call('sys_delete_timer', { id }, { origin: 'llm' });
    expect(s.delays()).toEqual([60_000]);

    agent.stop();
    expect(agent.started()).toBe(false);
    expect(s.delays()).toEqual([]);
    await agent.gate.call('sys_set_timer', { kind: 'delay', ms: 1_000, payload: 'x' }, { origin: 'llm' });
    expect(s.delays()).toEqual([]); // stopped: changes do not arm it

    await agent.start();
    expect(s.delays()).toEqual([1_000]);
    agent.close();
    expect(s.delays()).toEqual([]);
  });

  it('caps far delays, does not spin on a timer a firing failed to advance, and keeps firings apart', async () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const s = manualScheduler();
    let rows = [{ expired: false, nextWakeAt: '2099-01-01T00:00:00.000Z' }];
    let fired = 0;
    const clock = createTimerClock({
      timers: { list: () => rows as never },
      clock: () => now,
      scheduler: s.scheduler,
      fire: async () => {
        fired++;
      },
    });
    clock.arm();
    expect(s.delays()).toEqual([MAX_TIMER_DELAY_MS]);
    rows = [{ expired: false, nextWakeAt: '2025-12-31T23:59:00.000Z' }];
    clock.rearm();
    expect(s.delays()).toEqual([0]);
    await s.fire();
    expect(fired).toBe(1);
    // The firing left the same wake time in place: retry later, not at once.
    expect(s.delays()).toEqual([STUCK_RETRY_MS]);
    rows = [{ expired: true, nextWakeAt: null as unknown as string }];
    clock.rearm();
    expect(s.delays()).toEqual([]);
  });

  it('the default scheduler does not keep the process alive', () => {
    const h = nodeTimerScheduler.setTimeout(() => undefined, 60_000) as ReturnType<typeof setTimeout>;
    expect(h.hasRef()).toBe(false);
    nodeTimerScheduler.clearTimeout(h);
  });
});
