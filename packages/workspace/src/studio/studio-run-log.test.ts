import { describe, expect, it } from 'vitest';
import { createRunLog } from './studio-run-log.js';

const EXIT = { code: 0, signal: null, timedOut: false, truncated: false, killed: false, durationMs: 1 };

describe('createRunLog', () => {
  it('numbers events from 1 and pages them after a cursor', () => {
    const log = createRunLog();
    log.output('stdout', 'a');
    log.egress({
      time: 't',
      action: 'egress.http',
      target: 'http://x/',
      decision: 'deny',
      rule: 'p:http.allow',
      code: 'C',
    });
    log.exit(EXIT);
    expect(log.page(0).events.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'output'],
      [2, 'egress'],
      [3, 'exit'],
    ]);
    expect(log.page(2)).toMatchObject({ events: [{ seq: 3, kind: 'exit' }], next: 3, state: 'exited' });
    expect(log.counts()).toMatchObject({ allowed: 0, denied: 1 });
  });

  it('appends output of one stream to an event no poll has seen; an event once sent never changes', () => {
    const log = createRunLog();
    log.output('stdout', 'a');
    log.output('stdout', 'b');
    expect(log.page(0).events).toEqual([{ seq: 1, kind: 'output', stream: 'stdout', text: 'ab' }]);
    log.output('stdout', 'c');
    log.output('stderr', 'e');
    log.output('stderr', 'f');
    expect(log.page(0).events).toEqual([
      { seq: 1, kind: 'output', stream: 'stdout', text: 'ab' },
      { seq: 2, kind: 'output', stream: 'stdout', text: 'c' },
      { seq: 3, kind: 'output', stream: 'stderr', text: 'ef' },
    ]);
  });

  it('keeps at most maxEvents (one kept back for the exit) and counts what it drops', () => {
    const log = createRunLog({ maxEvents: 4, maxEgress: 2, maxWaiters: 1 });
    for (let i = 0; i < 10; i += 1) {
      log.output(i % 2 === 0 ? 'stdout' : 'stderr', 'xy');
      log.page(0);
    }
    for (let i = 0; i < 3; i += 1) log.egress({ time: 't', action: 'egress.http', target: 'u', decision: 'allow' });
    log.exit(EXIT);
    const events = log.page(0).events;
    expect(events).toHaveLength(4);
    expect(events.at(-1)?.kind).toBe('exit');
    expect(log.counts()).toEqual({ allowed: 3, denied: 0, droppedOutputBytes: 14, droppedEgress: 3 });
  });

  it('a waiting poll is answered by the next event, and at once when the run has ended', async () => {
    const log = createRunLog();
    const waiting = log.wait(0, 60_000);
    log.output('stderr', 'now');
    expect((await waiting).events).toEqual([{ seq: 1, kind: 'output', stream: 'stderr', text: 'now' }]);
    log.exit(EXIT);
    expect((await log.wait(5, 60_000)).state).toBe('exited');
  });

  it('answers a poll over maxWaiters at once instead of holding it', async () => {
    const log = createRunLog({ maxEvents: 10, maxEgress: 10, maxWaiters: 1 });
    const first = log.wait(0, 60_000);
    expect(await log.wait(0, 60_000)).toEqual({ events: [], next: 0, state: 'running' });
    log.exit(EXIT);
    expect((await first).state).toBe('exited');
  });
});
