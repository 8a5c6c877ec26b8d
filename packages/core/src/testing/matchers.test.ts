import { describe, expect, it } from 'vitest';
import { allow, deny } from '../decision.js';
import { TrustError } from '../error.js';
import { trustMatchers } from './matchers.js';

const ctx = { isNot: false };

describe('trustMatchers', () => {
  it.each([
    ['throws the code', () => { throw new TrustError('X_A', 'a'); }, 'X_A', true],
    ['throws another code', () => { throw new TrustError('X_B', 'b'); }, 'X_A', false],
    ['throws a plain error', () => { throw new Error('plain'); }, 'X_A', false],
    ['returns', () => 1, 'X_A', false],
    ['a thrown value (rejects)', new TrustError('X_A', 'a'), 'X_A', true],
  ])('toThrowTrustError: %s -> %s', (_label, received, code, pass) => {
    expect(trustMatchers.toThrowTrustError.call(ctx, received, code).pass).toBe(pass);
  });

  it.each([
    [deny('X_NO', 'r'), undefined, true],
    [deny('X_NO', 'r'), 'X_NO', true],
    [deny('X_NO', 'r'), 'X_OTHER', false],
    [allow('r'), undefined, false],
    [undefined, undefined, false],
  ])('toBeDenied(%j, %s) -> %s', (d, code, pass) => {
    expect(trustMatchers.toBeDenied.call(ctx, d, code).pass).toBe(pass);
  });

  it.each([
    [allow(), true],
    [deny('X', 'r'), false],
    [{ allow: 'yes' }, false],
  ])('toBeAllowed(%j) -> %s', (d, pass) => {
    expect(trustMatchers.toBeAllowed.call(ctx, d).pass).toBe(pass);
  });

  it('explains a failure', () => {
    expect(trustMatchers.toBeDenied.call(ctx, allow('r1'), 'X').message()).toBe('expected deny X, got allow (rule r1)');
    expect(trustMatchers.toThrowTrustError.call(ctx, () => { throw new TrustError('X_B', 'b'); }, 'X_A').message()).toBe('expected TrustError X_A, got TrustError X_B');
  });

  it('is registered for core tests, including .not and .rejects', async () => {
    expect(() => { throw new TrustError('X_A', 'a'); }).toThrowTrustError('X_A');
    expect(allow()).not.toBeDenied();
    expect(deny('X', 'r')).toBeDenied('X');
    expect(allow()).toBeAllowed();
    await expect(Promise.reject(new TrustError('X_R', 'r'))).rejects.toThrowTrustError('X_R');
  });
});
