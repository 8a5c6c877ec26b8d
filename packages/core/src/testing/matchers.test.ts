import { describe, expect, it } from 'vitest';
import { allow, deny } from '../decision.js';
import { TrustError } from '../error.js';
import type { TrustErrorCode } from '../trust-error-code.js';
import { trustMatchers } from './matchers.js';

const ctx = { isNot: false };

describe('trustMatchers', () => {
  it.each<[string, unknown, TrustErrorCode, boolean]>([
    [
      'throws the code',
      () => {
        throw new TrustError('POLICY_JSON', 'a');
      },
      'POLICY_JSON',
      true,
    ],
    [
      'throws another code',
      () => {
        throw new TrustError('POLICY_TYPE', 'b');
      },
      'POLICY_JSON',
      false,
    ],
    [
      'throws a plain error',
      () => {
        throw new Error('plain');
      },
      'POLICY_JSON',
      false,
    ],
    ['returns', () => 1, 'POLICY_JSON', false],
    ['a thrown value (rejects)', new TrustError('POLICY_JSON', 'a'), 'POLICY_JSON', true],
  ])('toThrowTrustError: %s -> %s', (_label, received, code, pass) => {
    expect(trustMatchers.toThrowTrustError.call(ctx, received, code).pass).toBe(pass);
  });

  it.each([
    [deny('EGRESS_DENY_ALL', 'r'), undefined, true],
    [deny('EGRESS_DENY_ALL', 'r'), 'EGRESS_DENY_ALL', true],
    [deny('EGRESS_DENY_ALL', 'r'), 'EGRESS_LOOPBACK', false],
    [allow('r'), undefined, false],
    [undefined, undefined, false],
  ] as const)('toBeDenied(%j, %s) -> %s', (d, code, pass) => {
    expect(trustMatchers.toBeDenied.call(ctx, d, code).pass).toBe(pass);
  });

  it.each([
    [allow(), true],
    [deny('EGRESS_HOST_DENIED', 'r'), false],
    [{ allow: 'yes' }, false],
  ])('toBeAllowed(%j) -> %s', (d, pass) => {
    expect(trustMatchers.toBeAllowed.call(ctx, d).pass).toBe(pass);
  });

  it('explains a failure', () => {
    expect(trustMatchers.toBeDenied.call(ctx, allow('r1'), 'EGRESS_HOST_DENIED').message()).toBe(
      'expected deny EGRESS_HOST_DENIED, got allow (rule r1)',
    );
    expect(
      trustMatchers.toThrowTrustError
        .call(
          ctx,
          () => {
            throw new TrustError('POLICY_TYPE', 'b');
          },
          'POLICY_JSON',
        )
        .message(),
    ).toBe('expected TrustError POLICY_JSON, got TrustError POLICY_TYPE');
  });

  it.each([
    ['an error with the code', new TrustError('POLICY_JSON', 'a'), true],
    ['an error with another code', new TrustError('POLICY_TYPE', 'b'), false],
    ['a plain object (a problem, a result)', { code: 'POLICY_JSON', path: 'v' }, true],
    ['an object without a code', { path: 'v' }, false],
    ['a string', 'POLICY_JSON', false],
    ['undefined', undefined, false],
  ])('toHaveTrustCode: %s -> %s', (_label, received, pass) => {
    expect(trustMatchers.toHaveTrustCode.call(ctx, received, 'POLICY_JSON').pass).toBe(pass);
  });

  it.each([
    ['POLICY_JSON', true],
    ['POLICY_TYPE', false],
    [undefined, false],
  ])('toBeTrustCode(%j) -> %s', (received, pass) => {
    expect(trustMatchers.toBeTrustCode.call(ctx, received, 'POLICY_JSON').pass).toBe(pass);
  });

  it('accepts only known codes, so a misspelt code fails to type-check', () => {
    // Each line below misspells a code. tsc reports an error on each; `@ts-expect-error` turns that
    // error into the expectation, so `pnpm lint` fails if a misspelt code ever type-checks again.
    // @ts-expect-error 'POLICY_JSNO' is not a known code
    const misspeltThrow = () => new TrustError('POLICY_JSNO', 'typo');
    // @ts-expect-error 'EGRESS_LOOPBAK' is not a known code
    const misspeltDeny = () => deny('EGRESS_LOOPBAK', 'typo');
    // Never called: these lines exist for the type-check only.
    const misspeltMatchers = () => {
      // @ts-expect-error the matchers take only known codes
      expect(() => misspeltThrow()).toThrowTrustError('POLICY_JSNO');
      // @ts-expect-error the matchers take only known codes
      expect({ code: 'POLICY_JSON' }).toHaveTrustCode('POLICY_JSN');
      // @ts-expect-error the asymmetric matcher too
      expect({ code: 'POLICY_JSON' }).toMatchObject({ code: expect.toBeTrustCode('POLICY_JSN') });
    };
    expect(typeof misspeltMatchers).toBe('function');
    // At run time the misspelt codes are still what was written: the check is the type-check.
    expect(misspeltThrow().code).toBe('POLICY_JSNO');
    expect(misspeltDeny().code).toBe('EGRESS_LOOPBAK');
  });

  it('is registered for core tests, including .not and .rejects', async () => {
    expect(() => {
      throw new TrustError('POLICY_JSON', 'a');
    }).toThrowTrustError('POLICY_JSON');
    expect(allow()).not.toBeDenied();
    expect(deny('EGRESS_HOST_DENIED', 'r')).toBeDenied('EGRESS_HOST_DENIED');
    expect(allow()).toBeAllowed();
    await expect(Promise.reject(new TrustError('AUDIT_SINK_CLOSED', 'r'))).rejects.toThrowTrustError(
      'AUDIT_SINK_CLOSED',
    );
    await expect(Promise.reject(new TrustError('AUDIT_SINK_CLOSED', 'r'))).rejects.toHaveTrustCode('AUDIT_SINK_CLOSED');
    expect(new TrustError('POLICY_JSON', 'j').code).toBeTrustCode('POLICY_JSON');
    expect({ ok: false, code: 'POLICY_JSON' }).toMatchObject({ ok: false, code: expect.toBeTrustCode('POLICY_JSON') });
    expect({ code: 'POLICY_JSON' }).not.toMatchObject({ code: expect.toBeTrustCode('POLICY_TYPE') });
  });
});
