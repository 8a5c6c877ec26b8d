import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { checkAgentConfig, defaultAgentConfig } from '../config/agent-config.js';
import { openAgent } from '../loop/agent.js';
import type { TimerScheduler } from '../loop/timer-clock.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { triggerTimingOf } from './trigger-timing.js';

// Timed triggers (debounce_ms, interval_ms, batch_ms + batch_count) through a real agent. The
// scheduler is driven by hand and the clock is injected: no test waits on a wall clock.

/** Scheduled callbacks with their due time on the injected clock; `advance` runs those due, in order. */
function fakeTime(start: string) {
  let now = new Date(start).getTime();
  let n = 0;
  const queue = new Map<number, { fn: () => unknown; at: number }>();
  const scheduler: TimerScheduler = {
    setTimeout(fn, ms) {
      queue.set(++n, { fn, at: now + ms });
      return n;
    },
    clearTimeout(h) {
      queue.delete(h as number);
    },
  };
  return {
    scheduler,
    clock: () => new Date(now),
    scheduled: () => queue.size,
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...queue.entries()]
          .filter(([, q]) => q.at <= until)
          .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (!due) break;
        queue.delete(due[0]);
        now = Math.max(now, due[1].at);
        await due[1].fn();
      }
      now = until;
    },
  };
}

type Trigger = Record<string, unknown>;
function agentWith(triggers: Trigger[], t: ReturnType<typeof fakeTime>) {
  const path = join(mkdtempSync(join(tmpdir(), 'trigger-timing-')), 'a.adf');
  const config = structuredClone(defaultAgentConfig()) as unknown as { triggers: Trigger[] };
  config.triggers = triggers;
  createAdf(path, { template: config }).close();
  const agent = openAgent(path, { provider: createScriptedProvider(), clock: t.clock, scheduler: t.scheduler });
  agent.adf.files.write(
    'hooks.ts',
    'async function seen(ev: { data: { payload?: unknown; count?: number; batch?: Array<{ data: { payload: ' +
      'unknown } }> } }): Promise<void> { const what = ev.data.batch ? ev.data.count + ":" + ' +
      'ev.data.batch.map((b) => b.data.payload).join(",") : String(ev.data.payload); await adf.fs_write({ ' +
      'path: "seen.txt", mode: "append", content: what + ";" }); }',
  );
  return agent;
}
const seen = (agent: ReturnType<typeof openAgent>) => agent.adf.files.read('seen.txt')?.content.toString() ?? '';
const post = (agent: ReturnType<typeof openAgent>, payload: unknown) => agent.trigger({ source: 'ci', payload });
const base = { type: 'on_external', scope: 'system', lambda: 'hooks.ts:seen', filter: { source: 'ci' } };

describe('trigger timing: config', () => {
  it.each([
    [{ debounce_ms: 10, interval_ms: 10 }, 'at most one of debounce_ms, interval_ms, batch_ms'],
    [{ interval_ms: 10, batch_ms: 10 }, 'at most one of'],
    [{ batch_count: 3 }, 'batch_count needs batch_ms'],
    [{ debounce_ms: 0 }, ''],
    [{ batch_ms: 10, batch_count: 1001 }, ''],
    [{ interval_ms: 1.5 }, ''],
  ])('%j is refused', (extra, message) => {
    const r = checkAgentConfig({ v: 1, triggers: [{ ...base, ...extra }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.message).join(' ')).toContain(message);
  });

  it('one option is accepted and read back', () => {
    const r = checkAgentConfig({
      v: 1,
      triggers: [{ ...base, batch_ms: 1000, batch_count: 5 }, { ...base, debounce_ms: 20 }, base],
    });
    expect(r.ok).toBe(true);
    if (r.ok)
      expect(r.config.triggers.map(triggerTimingOf)).toEqual([
        { kind: 'batch', ms: 1000, count: 5 },
        { kind: 'debounce', ms: 20 },
        undefined,
      ]);
  });
});

describe('trigger timing: dispatch', () => {
  it('debounce_ms fires once with the latest event after a quiet period', async () => {
    const t = fakeTime('2026-12-02T10:00:00Z');
    const agent = agentWith([{ ...base, debounce_ms: 500 }], t);
    expect(await post(agent, 1)).toMatchObject([{ outcome: 'deferred', detail: 'held by debounce_ms 500' }]);
    await t.advance(300);
    await post(agent, 2);
    await t.advance(300);
    await post(agent, 3);
    await t.advance(499);
    expect(seen(agent)).toBe('');
    await t.advance(1);
    expect(seen(agent)).toBe('3;');
    expect(agent.adf.audit.list().filter((e) => e.action === 'trigger.fire')).toHaveLength(1);
    await t.advance(10_000);
    expect(seen(agent)).toBe('3;');
    agent.close();
  });

  it('interval_ms fires the first event at once and the latest of the rest when the interval ends', async () => {
    const t = fakeTime('2026-12-02T10:00:00Z');
    const agent = agentWith([{ ...base, interval_ms: 1000 }], t);
    expect(await post(agent, 'a')).toMatchObject([{ outcome: 'ran' }]);
    await t.advance(100);
    expect(await post(agent, 'b')).toMatchObject([{ outcome: 'deferred' }]);
    await post(agent, 'c');
    expect(seen(agent)).toBe('a;');
    await t.advance(899);
    expect(seen(agent)).toBe('a;');
    await t.advance(1);
    expect(seen(agent)).toBe('a;c;');
    await t.advance(999);
    // still within the interval of the trailing firing
    expect(await post(agent, 'd')).toMatchObject([{ outcome: 'deferred' }]);
    await t.advance(1);
    expect(seen(agent)).toBe('a;c;d;');
    await t.advance(5000);
    expect(await post(agent, 'e')).toMatchObject([{ outcome: 'ran' }]);
    expect(seen(agent)).toBe('a;c;d;e;');
    agent.close();
  });

  it('batch_ms collects events and fires once with all of them; batch_count releases early', async () => {
    const t = fakeTime('2026-12-02T10:00:00Z');
    const agent = agentWith([{ ...base, batch_ms: 1000, batch_count: 3 }], t);
    await post(agent, 1);
    await t.advance(400);
    await post(agent, 2);
    await t.advance(600);
    expect(seen(agent)).toBe('2:1,2;');
    await post(agent, 3);
    await post(agent, 4);
    await post(agent, 5); // the third: released through the scheduler at once
    expect(seen(agent)).toBe('2:1,2;');
    await t.advance(0);
    expect(seen(agent)).toBe('2:1,2;3:3,4,5;');
    await post(agent, 6); // a new batch
    await t.advance(1000);
    expect(seen(agent)).toBe('2:1,2;3:3,4,5;1:6;');
    agent.close();
  });

  it('held events are dropped when the trigger changes, and on close', async () => {
    const t = fakeTime('2026-12-02T10:00:00Z');
    const agent = agentWith([{ ...base, debounce_ms: 100 }], t);
    await post(agent, 1);
    const config = agent.adf.config();
    agent.adf.setConfig({ ...config, triggers: [{ ...config.triggers[0]!, debounce_ms: 200 }] });
    await t.advance(100);
    expect(seen(agent)).toBe('');
    expect(
      agent.adf.logs.list().some((l) => l.event === 'trigger.dropped' && /changed while 1 event/.test(l.message)),
    ).toBe(true);
    await post(agent, 2);
    agent.close();
    expect(t.scheduled()).toBe(0);
  });

  it('a timed trigger still never fires on its own effects', async () => {
    const t = fakeTime('2026-12-02T10:00:00Z');
    const agent = agentWith(
      [
        {
          type: 'on_file_change',
          scope: 'system',
          lambda: 'echo.ts:run',
          filter: { watch: 'data/**' },
          debounce_ms: 50,
        },
      ],
      t,
    );
    agent.adf.files.write(
      'echo.ts',
      'async function run(ev: { data: { path: string } }): Promise<void> { await adf.fs_write({ path: ' +
        '"data/echo.txt", mode: "append", content: ev.data.path + ";" }); }',
    );
    agent.adf.files.write('data/in.txt', 'x');
    await agent.idle();
    await t.advance(50);
    await agent.idle();
    expect(agent.adf.files.read('data/echo.txt')?.content.toString()).toBe('data/in.txt;');
    expect(agent.adf.logs.list().filter((l) => l.event === 'trigger.refused')).toHaveLength(1); // its own write
    await t.advance(1000);
    expect(agent.adf.files.read('data/echo.txt')?.content.toString()).toBe('data/in.txt;');
    agent.close();
  });
});
