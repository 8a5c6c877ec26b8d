import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createEgressDispatcher, type EgressDispatcherOptions } from './dispatcher.js';
import { createEgressGuard } from './guard.js';

/** The error `createEgressDispatcher(options)` throws (fails the test when it does not throw). */
const refusal = (options: unknown) => thrownBy(() => createEgressDispatcher(options as EgressDispatcherOptions));

describe('createEgressDispatcher options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean"', () => {
    expect(refusal({ onDail: () => undefined })).toRefuseOptions(
      'EGRESS_OPTIONS_INVALID',
      [{ code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'onDail', hint: /did you mean "onDial"\?/ }],
      /^createEgressDispatcher options are invalid/,
    );
  });

  it.each([
    [{ onDial: 'log' }, 'onDial'],
    [{ limits: { connectTimeoutMs: 0 } }, 'limits.connectTimeoutMs'],
    [{ guard: { mode: 'open' } }, 'guard.mode'],
    [{ guard: 'strict' }, 'guard'],
  ])('%j: an invalid value is refused', (options, path) => {
    expect(refusal(options)).toRefuseOptions('EGRESS_OPTIONS_INVALID', [{ code: 'EGRESS_OPTIONS_INVALID', path }]);
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
