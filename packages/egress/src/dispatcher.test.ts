import type { TrustError } from '@trust/core';
import { describe, expect, it } from 'vitest';
import { createEgressDispatcher, type EgressDispatcherOptions } from './dispatcher.js';
import { createEgressGuard } from './guard.js';

/** The error `createEgressDispatcher(options)` throws (fails the test when it does not throw). */
function refusal(options: unknown): TrustError {
  try {
    createEgressDispatcher(options as EgressDispatcherOptions);
  } catch (e) {
    return e as TrustError;
  }
  throw new Error('createEgressDispatcher accepted the options');
}

describe('createEgressDispatcher options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean"', () => {
    const e = refusal({ onDail: () => undefined });
    expect(e).toHaveTrustCode('EGRESS_OPTIONS_INVALID');
    expect(e.message).toMatch(/^createEgressDispatcher options are invalid/);
    expect(e.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('EGRESS_OPTIONS_UNKNOWN_KEY'),
        path: 'onDail',
        hint: expect.stringMatching(/did you mean "onDial"\?/),
      }),
    ]);
  });

  it.each([
    [{ onDial: 'log' }, 'onDial'],
    [{ limits: { connectTimeoutMs: 0 } }, 'limits.connectTimeoutMs'],
    [{ guard: { mode: 'open' } }, 'guard.mode'],
    [{ guard: 'strict' }, 'guard'],
  ])('%j: an invalid value is refused', (options, path) => {
    const e = refusal(options);
    expect(e.problems).toEqual([
      expect.objectContaining({ code: expect.toBeTrustCode('EGRESS_OPTIONS_INVALID'), path }),
    ]);
  });

  it('passes valid options: a compiled guard or guard options, limits and onDial', async () => {
    const agents = [
      createEgressDispatcher(),
      createEgressDispatcher({ guard: createEgressGuard({ mode: 'strict' }), onDial: () => undefined }),
      createEgressDispatcher({ guard: { mode: 'strict' }, limits: { connectTimeoutMs: 500, maxHeaderBytes: 1024 } }),
    ];
    for (const agent of agents) await agent.close();
  });
});
