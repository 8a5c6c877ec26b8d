import { describe, expect, it } from 'vitest';
import { type Problem, TrustError } from '../error.js';
import { checkOptionsRefusal, type ExpectedProblem } from './options-refusal.js';

const unknownKey: Problem = {
  code: 'EGRESS_OPTIONS_UNKNOWN_KEY',
  path: 'mdoe',
  message: 'unknown "mdoe"',
  hint: 'did you mean "mode"? (known: mode)',
};
const invalid: Problem = {
  code: 'EGRESS_OPTIONS_INVALID',
  path: 'protectedPorts.0',
  message: 'Too small: expected number to be >0',
  hint: 'e.g. [7385]',
};
const refusal = new TrustError('EGRESS_OPTIONS_INVALID', 'createEgressGuard options are invalid (2 problems)', {
  problems: [unknownKey, invalid],
});
const key: ExpectedProblem = { code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'mdoe', hint: 'did you mean "mode"?' };
const port: ExpectedProblem = { code: 'EGRESS_OPTIONS_INVALID', path: 'protectedPorts.0', hint: /e\.g\. \[7385\]/ };
const both = [key, port];
const throwing = () => {
  throw refusal;
};

describe('toRefuseOptions (checkOptionsRefusal)', () => {
  it.each<[string, unknown, ExpectedProblem[], string | RegExp | undefined, boolean]>([
    ['the listed problems', refusal, both, undefined, true],
    ['the same problems in another order', refusal, [...both].reverse(), undefined, true],
    ['a function that throws the refusal', throwing, both, /^createEgressGuard options are invalid/, true],
    ['a message that fits', refusal, both, 'options are invalid (2 problems)', true],
    ['a message that does not fit', refusal, both, /^createEgressClient/, false],
    ['a problem fewer than listed', refusal, both.slice(0, 1), undefined, false],
    [
      'a problem more than listed',
      refusal,
      [...both, { code: 'EGRESS_OPTIONS_INVALID', path: 'mode' }],
      undefined,
      false,
    ],
    ['one problem listed twice', refusal, [key, key], undefined, false],
    ['another problem code', refusal, [{ ...key, code: 'EGRESS_OPTIONS_INVALID' }, port], undefined, false],
    ['another path', refusal, [{ ...key, path: 'mode' }, port], undefined, false],
    ['a hint that does not fit', refusal, [{ ...key, hint: 'did you mean "mod"?' }, port], undefined, false],
    ['a hint pattern that does not fit', refusal, [key, { ...port, hint: /e\.g\. 5000/ }], undefined, false],
    ['a problem message that fits', refusal, [{ ...key, message: /unknown "mdoe"/ }, port], undefined, true],
    ['a problem message that does not', refusal, [{ ...key, message: 'invalid' }, port], undefined, false],
    ['a plain error', new Error('x'), both, undefined, false],
    ['a function that returns', () => 1, both, undefined, false],
    ['undefined', undefined, both, undefined, false],
  ])('%s', (_label, received, problems, message, pass) => {
    expect(checkOptionsRefusal(received, 'EGRESS_OPTIONS_INVALID', problems, message).pass).toBe(pass);
  });

  it('refuses another error code', () => {
    expect(checkOptionsRefusal(refusal, 'WASM_OPTIONS_INVALID', both).pass).toBe(false);
  });

  it('needs a hint when one is expected', () => {
    const noHint = new TrustError('EGRESS_OPTIONS_INVALID', 'm', { problems: [{ ...unknownKey, hint: undefined }] });
    expect(checkOptionsRefusal(noHint, 'EGRESS_OPTIONS_INVALID', [key]).pass).toBe(false);
    expect(
      checkOptionsRefusal(noHint, 'EGRESS_OPTIONS_INVALID', [{ code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'mdoe' }])
        .pass,
    ).toBe(true);
  });

  it('finds a matching when a greedy first choice would block it', () => {
    const twoPorts = new TrustError('EGRESS_OPTIONS_INVALID', 'm', {
      problems: [
        { ...invalid, hint: 'e.g. [7385] (a port)' },
        { ...invalid, hint: 'e.g. [7385]' },
      ],
    });
    const loose = { code: 'EGRESS_OPTIONS_INVALID', path: 'protectedPorts.0', hint: 'e.g.' } as const;
    const tight = { ...loose, hint: '(a port)' };
    expect(checkOptionsRefusal(twoPorts, 'EGRESS_OPTIONS_INVALID', [loose, tight]).pass).toBe(true);
  });

  it('explains a failure with what was expected and what was thrown', () => {
    const result = checkOptionsRefusal(refusal, 'EGRESS_OPTIONS_INVALID', [{ ...key, path: 'mode' }]);
    expect(result.message()).toBe(
      [
        'expected TrustError EGRESS_OPTIONS_INVALID with the problems',
        '  EGRESS_OPTIONS_UNKNOWN_KEY at mode, hint ~ "did you mean \\"mode\\"?"',
        'got TrustError EGRESS_OPTIONS_INVALID: "createEgressGuard options are invalid (2 problems)" with the problems',
        '  EGRESS_OPTIONS_UNKNOWN_KEY at mdoe: "unknown \\"mdoe\\"", hint "did you mean \\"mode\\"? (known: mode)"',
        '  EGRESS_OPTIONS_INVALID at protectedPorts.0: "Too small: expected number to be >0", hint "e.g. [7385]"',
      ].join('\n'),
    );
    // a passing check explains itself for `.not`
    expect(checkOptionsRefusal(refusal, 'EGRESS_OPTIONS_INVALID', both).message()).toMatch(/^expected not TrustError/);
    expect(checkOptionsRefusal(() => Promise.resolve(), 'EGRESS_OPTIONS_INVALID', []).message()).toMatch(
      /but the function returned a promise: use `await expect\(promise\)\.rejects\.toRefuseOptions/,
    );
  });

  it('is registered for core tests, including .not and .rejects', async () => {
    expect(throwing).toRefuseOptions('EGRESS_OPTIONS_INVALID', both, /\(2 problems\)$/);
    expect(throwing).not.toRefuseOptions('EGRESS_OPTIONS_INVALID', both.slice(1));
    await expect(Promise.reject(refusal)).rejects.toRefuseOptions('EGRESS_OPTIONS_INVALID', both);
  });
});
