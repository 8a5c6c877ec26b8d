// The options of probeSandbox: refused before anything runs; valid ones reach the probe.
import { rejectionOf } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { probeSandbox, type ProbeOptions } from './probe.js';

/** The error `probeSandbox(options)` rejects with (fails the test when it does not). */
const refusal = (options: unknown) => rejectionOf(() => probeSandbox(options as ProbeOptions));

describe('probeSandbox options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean"', async () => {
    expect(await refusal({ bwrapPth: '/usr/bin/bwrap' })).toRefuseOptions('SANDBOX_POLICY_INVALID', [
      { code: 'SANDBOX_POLICY_UNKNOWN_KEY', path: 'bwrapPth', hint: /did you mean "bwrapPath"\?/ },
    ]);
  });

  it.each([
    [{ bwrapPath: '' }, 'bwrapPath', /"\/usr\/bin\/bwrap"/],
    [{ launcherPath: 7 }, 'launcherPath', /ensureLauncher/],
  ])('%j: an invalid value is refused with a valid example', async (options, path, hint) => {
    expect(await refusal(options)).toRefuseOptions('SANDBOX_POLICY_INVALID', [
      { code: 'SANDBOX_POLICY_INVALID', path, hint },
    ]);
  });

  it('passes valid options to the probe (a missing bubblewrap is a finding, not an options error)', async () => {
    const p = await probeSandbox({ bwrapPath: '/nonexistent/bwrap' });
    expect(p.bwrap).toBeNull();
  });
});
