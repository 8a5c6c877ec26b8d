// The options of probeSandbox: refused before anything runs; valid ones reach the probe.
import type { TrustError } from '@trust/core';
import { describe, expect, it } from 'vitest';
import { probeSandbox, type ProbeOptions } from './probe.js';

/** The error `probeSandbox(options)` rejects with (fails the test when it does not). */
async function refusal(options: unknown): Promise<TrustError> {
  try {
    await probeSandbox(options as ProbeOptions);
  } catch (e) {
    return e as TrustError;
  }
  throw new Error('probeSandbox accepted the options');
}

describe('probeSandbox options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean"', async () => {
    const e = await refusal({ bwrapPth: '/usr/bin/bwrap' });
    expect(e).toHaveTrustCode('SANDBOX_POLICY_INVALID');
    expect(e.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('SANDBOX_POLICY_UNKNOWN_KEY'),
        path: 'bwrapPth',
        hint: expect.stringMatching(/did you mean "bwrapPath"\?/),
      }),
    ]);
  });

  it.each([
    [{ bwrapPath: '' }, 'bwrapPath', /"\/usr\/bin\/bwrap"/],
    [{ launcherPath: 7 }, 'launcherPath', /ensureLauncher/],
  ])('%j: an invalid value is refused with a valid example', async (options, path, hint) => {
    const e = await refusal(options);
    expect(e.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('SANDBOX_POLICY_INVALID'),
        path,
        hint: expect.stringMatching(hint),
      }),
    ]);
  });

  it('passes valid options to the probe (a missing bubblewrap is a finding, not an options error)', async () => {
    const p = await probeSandbox({ bwrapPath: '/nonexistent/bwrap' });
    expect(p.bwrap).toBeNull();
  });
});
