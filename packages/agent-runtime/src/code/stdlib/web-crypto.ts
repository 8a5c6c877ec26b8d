/**
 * Guest source: the Web Crypto subset agent code can use: `getRandomValues` and `randomUUID` from the
 * host's CSPRNG, `subtle.digest` with SHA-1/256/384/512 from the host's hashes. The other `subtle`
 * methods reject with NotSupportedError (keys would have to live outside the isolate).
 */
export const WEB_CRYPTO_SOURCE = String.raw`(function (lib) {
  'use strict';
  const enc = lib.load('web:encoding');
  const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    BigInt64Array, BigUint64Array];
  const named = (name, message) => { const e = new Error(message); e.name = name; return e; };
  const getRandomValues = (array) => {
    if (!INTEGER_ARRAYS.some((T) => array instanceof T))
      throw named('TypeMismatchError', 'getRandomValues takes an integer-typed array');
    if (array.byteLength > 65536)
      throw named('QuotaExceededError', 'getRandomValues: the array exceeds 65536 bytes');
    const bytes = new Uint8Array(lib.std('random', array.byteLength));
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(bytes);
    return array;
  };
  const randomUUID = () => lib.std('uuid');
  const DIGESTS = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];
  const digest = (algorithm, data) =>
    new Promise((resolve) => {
      const name = String(typeof algorithm === 'object' && algorithm !== null ? algorithm.name :
        algorithm).toUpperCase();
      if (!DIGESTS.includes(name)) throw named('NotSupportedError', 'Unrecognized algorithm name: ' + name);
      resolve(lib.std('hash', name, enc.copyOf(enc.toBytes(data, 'crypto.subtle.digest'))));
    });
  const unsupported = (method) => () =>
    Promise.reject(named('NotSupportedError', 'crypto.subtle.' + method + ' is not available in the sandbox'));
  const subtle = Object.freeze({
    digest,
    encrypt: unsupported('encrypt'), decrypt: unsupported('decrypt'), sign: unsupported('sign'),
    verify: unsupported('verify'), generateKey: unsupported('generateKey'), deriveKey: unsupported('deriveKey'),
    deriveBits: unsupported('deriveBits'), importKey: unsupported('importKey'), exportKey: unsupported('exportKey'),
    wrapKey: unsupported('wrapKey'), unwrapKey: unsupported('unwrapKey'),
  });
  const crypto = Object.freeze({ getRandomValues, randomUUID, subtle });
  return { crypto, getRandomValues, randomUUID, subtle };
})`;
