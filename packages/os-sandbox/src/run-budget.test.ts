import { describe, expect, it } from 'vitest';
import { runBudget } from './run-budget.js';

describe('run budget', () => {
  it.each([
    ['a run: the defaults', {}, {}, false, 60_000, 1024 * 1024],
    ['a run: the spawn lowers them', {}, { timeoutMs: 5, maxOutputBytes: 7 }, false, 5, 7],
    ['a run: the spawn never raises them', { timeMs: 10, outputBytes: 20 }, { timeoutMs: 50 }, false, 10, 20],
    ['a service: no default budget', {}, {}, true, Infinity, Infinity],
    ['a service: the policy still applies', { timeMs: 10, outputBytes: 20 }, {}, true, 10, 20],
    ['a service: the spawn lowers it', {}, { timeoutMs: 5, maxOutputBytes: 7 }, true, 5, 7],
  ])('%s', (_label, limits, request, service, timeoutMs, maxOutput) => {
    expect(runBudget(limits, request, service)).toEqual({ timeoutMs, maxOutput });
  });
});
