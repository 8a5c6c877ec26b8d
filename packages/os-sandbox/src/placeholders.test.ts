// The options of the placeholder keeper (decisions only; no launcher runs).
import type { TrustError } from '@trust/core';
import { describe, expect, it } from 'vitest';
import { createPlaceholderKeeper } from './placeholders.js';

/** The error `createPlaceholderKeeper(options)` throws (fails the test when it does not throw). */
function refusal(options: unknown): TrustError {
  try {
    createPlaceholderKeeper(options as { launcher: string; lingerMs: number });
  } catch (e) {
    return e as TrustError;
  }
  throw new Error('createPlaceholderKeeper accepted the options');
}

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
    const e = refusal(options);
    expect(e.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('SANDBOX_POLICY_INVALID'),
        path,
        hint: expect.stringMatching(hint),
      }),
    ]);
  });

  it('passes valid options', () => {
    const keeper = createPlaceholderKeeper({ launcher: '/opt/trust/launcher', lingerMs: 0 });
    expect(keeper.runArgs(['/srv/p'], [])).toEqual(['--hold', '/srv/p']);
  });
});
