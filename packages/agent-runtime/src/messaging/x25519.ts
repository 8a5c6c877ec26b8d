import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

// Ed25519 and X25519 share one curve in two coordinate systems, so a recipient's did:key
// (an Ed25519 public key) also names the X25519 key that payloads are encrypted to.
const P = 2n ** 255n - 19n;
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519 = Buffer.from('302a300506032b656e032100', 'hex');

function modPow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = ((base % P) + P) % P;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

function fromLittleEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

function toLittleEndian(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = n;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Maps an Ed25519 public key (32 bytes) to its X25519 public key: u = (1 + y) / (1 - y). */
export function x25519PublicFromEd25519(edPublic: Uint8Array): Uint8Array {
  if (edPublic.length !== 32) throw new RangeError('an Ed25519 public key has 32 bytes');
  const bytes = Uint8Array.from(edPublic);
  bytes[31]! &= 0x7f;
  const y = fromLittleEndian(bytes);
  if (y >= P || y === 1n) throw new RangeError('not a valid Ed25519 public key');
  const u = ((1n + y) * modPow(1n - y, P - 2n)) % P;
  return toLittleEndian(u);
}

/** Derives the X25519 private scalar from an Ed25519 seed (the first half of SHA-512, clamped). */
export function x25519PrivateFromEd25519Seed(seed: Uint8Array): Uint8Array {
  if (seed.length !== 32) throw new RangeError('an Ed25519 seed has 32 bytes');
  const h = createHash('sha512').update(seed).digest();
  const s = Uint8Array.from(h.subarray(0, 32));
  s[0]! &= 248;
  s[31]! &= 127;
  s[31]! |= 64;
  return s;
}

/** Node key objects for raw X25519 keys. */
export function x25519PrivateKey(raw: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_X25519, raw]), format: 'der', type: 'pkcs8' });
}

export function x25519PublicKey(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_X25519, raw]), format: 'der', type: 'spki' });
}

/** The raw 32 bytes of an X25519 public key object. */
export function rawX25519Public(key: KeyObject): Uint8Array {
  const der = key.export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - 32));
}
