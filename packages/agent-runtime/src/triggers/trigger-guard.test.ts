import { describe, expect, it } from 'vitest';
import { DEFAULT_TRIGGER_LIMITS, ROOT_CAUSE, createTriggerGuard } from './trigger-guard.js';

describe('trigger guard', () => {
  it.each([
    ['an outside event', 0, ROOT_CAUSE, true, undefined],
    ['its own effect', 0, { depth: 1, chain: [0] }, false, 'TRIGGER_SELF'],
    ['its own effect through another trigger', 0, { depth: 2, chain: [0, 1] }, false, 'TRIGGER_SELF'],
    ['another trigger’s effect', 1, { depth: 1, chain: [0] }, true, undefined],
    ['a chain at the depth limit', 3, { depth: 3, chain: [0, 1, 2] }, false, 'TRIGGER_DEPTH'],
  ])('%s', (_name, index, cause, allowed, code) => {
    const d = createTriggerGuard(DEFAULT_TRIGGER_LIMITS, () => new Date(0)).evaluate(index, cause);
    expect(d.allow).toBe(allowed);
    if (!d.allow) expect(d.code).toBe(code);
  });

  it('caps each trigger and the agent per sliding window, then lets them fire again', () => {
    let now = 0;
    const guard = createTriggerGuard(
      { ...DEFAULT_TRIGGER_LIMITS, maxPerTrigger: 2, maxTotal: 3, windowMs: 1000 },
      () => new Date(now),
    );
    const fire = (i: number) => {
      const d = guard.evaluate(i, ROOT_CAUSE);
      if (d.allow) guard.record(i);
      return d.allow ? 'ok' : d.code;
    };
    expect([fire(0), fire(0), fire(0)]).toEqual(['ok', 'ok', 'TRIGGER_RATE']);
    expect([fire(1), fire(1)]).toEqual(['ok', 'TRIGGER_RATE']);
    expect(guard.evaluate(1, ROOT_CAUSE)).toMatchObject({ allow: false, rule: 'trigger-rate-total' });
    now = 1001;
    expect([fire(0), fire(1)]).toEqual(['ok', 'ok']);
  });
});
