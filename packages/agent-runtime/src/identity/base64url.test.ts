import { describe, expect, it } from 'vitest';
import { decodeBase64UrlStrict, requireBase64UrlStrict } from './base64url.js';

const sig = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37) & 0xff)).toString('base64url');

describe('decodeBase64UrlStrict', () => {
  it.each([
    ['the empty string', '', []],
    ['one byte', 'AQ', [1]],
    ['three bytes', 'AQID', [1, 2, 3]],
    ['url-safe characters', '-_8', [0xfb, 0xff]],
  ])('accepts %s', (_name, text, bytes) => {
    expect([...decodeBase64UrlStrict(text)!]).toEqual(bytes);
  });

  it.each([
    ['a character outside the alphabet', 'AQ*ID'],
    ['whitespace', 'AQ ID'],
    ['a newline', 'AQ\nID'],
    ['a NUL', 'AQID\u0000'],
    ['padding', 'AQ=='],
    ['standard base64 +', '+/8'],
    ['a lone trailing character', 'AQIDB'],
    ['non-zero unused bits in the last character', 'AR'],
    ['a full-width letter', 'ＡQ'],
  ])('refuses %s', (_name, text) => {
    // Node's decoder accepts each of these (or a prefix) silently.
    expect(decodeBase64UrlStrict(text)).toBeUndefined();
  });

  it('a 64-byte signature has exactly one accepted spelling', () => {
    expect(decodeBase64UrlStrict(sig)).toHaveLength(64);
    const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // The last of 86 characters carries 2 bits of data and 4 unused ones: flip an unused one.
    const sibling = sig.slice(0, -1) + abc[abc.indexOf(sig.at(-1)!) ^ 1]!;
    expect(Buffer.from(sibling, 'base64url').equals(Buffer.from(sig, 'base64url'))).toBe(true);
    expect(decodeBase64UrlStrict(sibling)).toBeUndefined();
  });

  it('requireBase64UrlStrict throws a coded error naming the field', () => {
    expect(() => requireBase64UrlStrict('a*b', 'signature')).toThrowError(
      expect.objectContaining({
        code: expect.toBeTrustCode('ENCODING_BASE64URL_INVALID'),
        message: expect.stringContaining('signature'),
      }),
    );
  });
});
