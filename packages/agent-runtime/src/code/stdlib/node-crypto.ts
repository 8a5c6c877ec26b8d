/**
 * Guest source: `crypto` (the subset that needs no key material outside the isolate): createHash and
 * createHmac (sha1/256/384/512, md5), randomBytes, randomInt, randomUUID, getRandomValues,
 * timingSafeEqual, getHashes and `webcrypto`. Ciphers, signatures and key generation are refused
 * with ERR_NOT_IMPLEMENTED.
 */
export const NODE_CRYPTO_SOURCE = String.raw`(function (lib) {
  'use strict';
  const { Buffer } = lib.load('node:buffer');
  const web = lib.load('web:crypto');
  const enc = lib.load('web:encoding');
  const HASHES = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'];
  const bytesOf = (data, encoding) =>
    typeof data === 'string' ? Buffer.from(data, encoding) : enc.toBytes(data, 'crypto: data');
  class Hash {
    #alg; #key; #parts = []; #done = false;
    constructor(alg, key) {
      const a = String(alg).toLowerCase().replace('-', '');
      if (!HASHES.includes(a)) { const e = new Error('Digest method not supported');
        e.code = 'ERR_CRYPTO_INVALID_DIGEST'; throw e; }
      this.#alg = a;
      this.#key = key;
    }
    update(data, encoding) {
      if (this.#done) { const e = new Error('Digest already called'); e.code = 'ERR_CRYPTO_HASH_FINALIZED'; throw e; }
      this.#parts.push(Buffer.from(bytesOf(data, encoding)));
      return this;
    }
    digest(encoding) {
      if (this.#done) { const e = new Error('Digest already called'); e.code = 'ERR_CRYPTO_HASH_FINALIZED'; throw e; }
      this.#done = true;
      const data = enc.copyOf(Buffer.concat(this.#parts));
      const out = Buffer.from(this.#key === undefined ? lib.std('hash', this.#alg, data)
        : lib.std('hmac', this.#alg, enc.copyOf(this.#key), data));
      return encoding === undefined || encoding === 'buffer' ? out : out.toString(encoding);
    }
    copy() {
      const h = new Hash(this.#alg, this.#key);
      for (const p of this.#parts) h.update(p);
      return h;
    }
  }
  const randomBytes = (size, cb) => {
    const b = Buffer.from(lib.std('random', size));
    if (typeof cb === 'function') { Promise.resolve().then(() => cb(null, b)); return undefined; }
    return b;
  };
  const randomInt = (min, max, cb) => {
    if (max === undefined || typeof max === 'function') { cb = max; max = min; min = 0; }
    const range = max - min;
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || range <= 0 || range > 2 ** 48)
      throw new RangeError('The value of "max" is out of range. ' +
        'It must be greater than "min" and at most 2^48 above it');
    const limit = 2 ** 48 - (2 ** 48 % range);
    let x;
    do { const b = new Uint8Array(lib.std('random', 6)); x = b.reduce((a, v) => a * 256 + v, 0); } while (x >= limit);
    const r = min + (x % range);
    if (typeof cb === 'function') { Promise.resolve().then(() => cb(null, r)); return undefined; }
    return r;
  };
  const timingSafeEqual = (a, b) => {
    const x = enc.toBytes(a, 'timingSafeEqual');
    const y = enc.toBytes(b, 'timingSafeEqual');
    if (x.length !== y.length) { const e = new RangeError('Input buffers must have the same byte length');
      e.code = 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH'; throw e; }
    let d = 0;
    for (let i = 0; i < x.length; i++) d |= x[i] ^ y[i];
    return d === 0;
  };
  const refused = (name) => () => {
    const e = new Error('crypto.' + name + ' is not available in the sandbox');
    e.code = 'ERR_NOT_IMPLEMENTED';
    throw e;
  };
  const out = {
    createHash: (alg) => new Hash(alg),
    createHmac: (alg, key) => new Hash(alg, Buffer.from(bytesOf(key))),
    hash: (alg, data, encoding = 'hex') => new Hash(alg).update(data).digest(encoding),
    getHashes: () => HASHES.slice(),
    randomBytes, randomInt, timingSafeEqual,
    randomUUID: web.randomUUID,
    getRandomValues: web.getRandomValues,
    webcrypto: web.crypto,
    subtle: web.subtle,
  };
  for (const name of ['createCipheriv', 'createDecipheriv', 'createSign', 'createVerify', 'generateKeyPair',
    'generateKeyPairSync', 'createPrivateKey', 'createPublicKey', 'createSecretKey', 'pbkdf2', 'pbkdf2Sync',
    'scrypt', 'scryptSync', 'sign', 'verify', 'createDiffieHellman', 'createECDH', 'hkdf', 'hkdfSync'])
    out[name] = refused(name);
  return out;
})`;
