// The options of the placeholder keeper (decisions only; no launcher runs).
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createPlaceholderKeeper } from './placeholders.js';

/** The error `createPlaceholderKeeper(options)` throws (fails the test when it does not throw). */
const refusal = (options: unknown) =>
  thrownBy(() => createPlaceholderKeeper(options as { launcher: string; lingerMs: number }));

describe('createPlaceholderKeeper options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean"', () => {
    const e = refusal({ launcher: '/opt/trust/launcher', lingerMS: 0 });
    expect(e).toHaveTrustCode('SANDBOX_POLICY_INVALID');
    // lingerMs itself is then missing: both are reported at once
    expect(e.problems?.map((p) => [p.code, p.path])).toEqual([
      ['SANDBOX_POLICY_INVALID', 'lingerMs'],
      ['SANDBOX_POLICY_UNKNOWN_KEY', 'lingerMS'],
    ]);
    expect(e.problems?.[1]?.hint).toMatch(/did you mean "lingerMs"\?/);
  });

  it.each([
    [{ launcher: '', lingerMs: 0 }, 'launcher', /"\/opt\/trust\/launcher"/],
    [{ launcher: '/l', lingerMs: -1 }, 'lingerMs', /e\.g\. 3000/],
    [{ launcher: '/l', lingerMs: Number.NaN }, 'lingerMs', /e\.g\. 3000/],
    [{ launcher: '/l', lingerMs: 2 ** 31 }, 'lingerMs', /e\.g\. 3000/],
  ])('%j: an invalid value is refused with a valid example', (options, path, hint) => {
    expect(refusal(options)).toRefuseOptions('SANDBOX_POLICY_INVALID', [
      { code: 'SANDBOX_POLICY_INVALID', path, hint },
    ]);
  });

  it('passes valid options', () => {
    const keeper = createPlaceholderKeeper({ launcher: '/opt/trust/launcher', lingerMs: 0 });
    expect(keeper.runArgs(['/srv/p'], [])).toEqual(['--hold', '/srv/p']);
  });
});
