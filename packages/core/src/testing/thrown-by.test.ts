import { describe, expect, it } from 'vitest';
import { TrustError } from '../error.js';
import { rejectionOf, thrownBy } from './thrown-by.js';

const refused = new TrustError('POLICY_JSON', 'bad json');

describe('thrownBy', () => {
  it('returns the very TrustError the function throws', () => {
    expect(
      thrownBy(() => {
        throw refused;
      }),
    ).toBe(refused);
  });

  it.each<[string, () => unknown, RegExp]>([
    ['returns', () => 42, /but it returned 42$/],
    ['returns a promise', async () => undefined, /returned a promise; use rejectionOf$/],
    [
      'throws a plain error',
      () => {
        throw new RangeError('plain');
      },
      /^expected a TrustError, got RangeError: plain$/,
    ],
  ])('fails when the function %s', (_label, fn, message) => {
    expect(() => thrownBy(fn)).toThrow(message);
  });

  it('keeps a thrown non-TrustError as the cause', () => {
    const plain = new Error('plain');
    const failure = (() => {
      try {
        thrownBy(() => {
          throw plain;
        });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(failure?.cause).toBe(plain);
  });
});

describe('rejectionOf', () => {
  it('returns the TrustError the call rejects with, or throws before its first await', async () => {
    expect(await rejectionOf(async () => Promise.reject(refused))).toBe(refused);
    expect(
      await rejectionOf(() => {
        throw refused;
      }),
    ).toBe(refused);
  });

  it('fails when the call resolves, after a release inside it has run', async () => {
    const released: string[] = [];
    await expect(
      rejectionOf(async () => {
        released.push('closed');
        return 'server';
      }),
    ).rejects.toThrow(/resolved to "server"$/);
    expect(released).toEqual(['closed']);
  });

  it('fails when the call rejects with anything else, keeping it as the cause', async () => {
    const plain = new Error('plain');
    const failure = await rejectionOf(async () => Promise.reject(plain)).catch((e: unknown) => e as Error);
    expect(failure.message).toBe('expected a TrustError, got Error: plain');
    expect(failure.cause).toBe(plain);
  });
});
