import { TrustError } from '@trust/core';

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes base64url (RFC 4648 §5, no padding) only when `text` is the one canonical encoding of
 * its bytes: every character in the alphabet, no `=`, no length that leaves a lone character,
 * and the unused low bits of the last character zero. Node's own decoder skips characters it
 * does not know and ignores those bits, so many strings decode to the same signature; a
 * signature field has exactly one accepted spelling here. Returns `undefined` for anything else.
 *
 * @example
 * decodeBase64UrlStrict('AQID'); // Uint8Array [1, 2, 3]
 * decodeBase64UrlStrict('AQ*ID'); // undefined (a character outside the alphabet)
 * decodeBase64UrlStrict('AR'); // undefined ('AQ' is the canonical spelling of [1])
 */
export function decodeBase64UrlStrict(text: string): Uint8Array | undefined {
  if (typeof text !== 'string' || !ALPHABET.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // Re-encoding is the exact test for canonical trailing bits.
  if (bytes.toString('base64url') !== text) return undefined;
  return new Uint8Array(bytes);
}

/**
 * {@link decodeBase64UrlStrict}, throwing `ENCODING_BASE64URL_INVALID` (naming `field`) instead
 * of returning `undefined`.
 *
 * @example
 * const sig = requireBase64UrlStrict(frame.signature, 'signature');
 */
export function requireBase64UrlStrict(text: string, field: string): Uint8Array {
  const bytes = decodeBase64UrlStrict(text);
  if (bytes === undefined) {
    throw new TrustError('ENCODING_BASE64URL_INVALID', `${field} is not canonical base64url`, {
      hint:
        'encode the bytes with base64url without padding (A-Z a-z 0-9 - _), exactly as ' +
        'Buffer.toString("base64url") does',
    });
  }
  return bytes;
}
