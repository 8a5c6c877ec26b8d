import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { TrustError, allow, deny, type Decision } from '@trust/core';
import { base58btcDecode, base58btcEncode } from './base58.js';

const ED25519_MULTICODEC = Uint8Array.of(0xed, 0x01);

/**
 * `did:key:z…` for a raw 32-byte Ed25519 public key (multicodec 0xed01, base58btc).
 *
 * @example
 * didKeyFromPublicKey(identity.publicKey); // 'did:key:z6Mk…'
 */
export function didKeyFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.length !== 32)
    throw new TrustError('IDENTITY_KEY_INVALID', `an Ed25519 public key is 32 bytes, got ${publicKey.length}`);
  return `did:key:z${base58btcEncode(Uint8Array.from([...ED25519_MULTICODEC, ...publicKey]))}`;
}

/** The raw Ed25519 public key inside a `did:key`. Throws `IDENTITY_DID_INVALID` for anything else. */
export function publicKeyFromDidKey(did: string): Uint8Array {
  const bad = (why: string) =>
    new TrustError('IDENTITY_DID_INVALID', `"${String(did).slice(0, 100)}" is not an Ed25519 did:key: ${why}`, {
      hint: 'expected did:key:z6Mk…',
    });
  if (typeof did !== 'string' || !did.startsWith('did:key:z')) throw bad('missing the did:key:z prefix');
  const bytes = base58btcDecode(did.slice('did:key:z'.length));
  if (!bytes) throw bad('not base58btc');
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01)
    throw bad('not multicodec 0xed01 with a 32-byte key');
  return bytes.slice(2);
}

/** Wraps a raw Ed25519 public key as a node KeyObject. */
export function ed25519PublicKeyObject(raw: Uint8Array): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
}

/**
 * An agent's signing identity. The private key lives in a private field: it is not enumerable,
 * not serialised by JSON.stringify, and only `sign` and the sealed export use it.
 */
export class AgentIdentity {
  readonly did: string;
  readonly publicKey: Uint8Array;
  readonly #privateKey: KeyObject;

  constructor(privateKey: KeyObject) {
    if (privateKey.asymmetricKeyType !== 'ed25519')
      throw new TrustError('IDENTITY_KEY_INVALID', 'identity keys are Ed25519');
    this.#privateKey = privateKey;
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    this.publicKey = Uint8Array.from(Buffer.from(jwk.x as string, 'base64url'));
    this.did = didKeyFromPublicKey(this.publicKey);
  }

  /** Ed25519 signature (64 bytes) over `payload`. */
  sign(payload: Uint8Array): Uint8Array {
    return Uint8Array.from(sign(null, payload, this.#privateKey));
  }

  /** PKCS#8 DER of the private key. Used only to seal it into an envelope. @internal */
  exportPkcs8(): Buffer {
    return this.#privateKey.export({ format: 'der', type: 'pkcs8' });
  }

  toJSON(): { did: string } {
    return { did: this.did };
  }
}

/**
 * A fresh Ed25519 identity, or one restored from PKCS#8 DER.
 *
 * @example
 * const id = createIdentity();
 * const sig = signWithIdentity(id, new TextEncoder().encode('hello'));
 * verifyDidSignature(id.did, new TextEncoder().encode('hello'), sig).allow; // true
 */
export function createIdentity(pkcs8?: Uint8Array): AgentIdentity {
  const key = pkcs8
    ? createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' })
    : generateKeyPairSync('ed25519').privateKey;
  return new AgentIdentity(key);
}

/** Signs bytes (e.g. JCS-canonical JSON) with an identity. Returns the 64-byte signature. */
export function signWithIdentity(identity: AgentIdentity, payload: Uint8Array): Uint8Array {
  return identity.sign(payload);
}

/** Verifies an Ed25519 signature by a `did:key`. A malformed DID or signature denies. */
export function verifyDidSignature(did: string, payload: Uint8Array, signature: Uint8Array): Decision {
  let key: KeyObject;
  try {
    key = ed25519PublicKeyObject(publicKeyFromDidKey(did));
  } catch (e) {
    return deny('IDENTITY_DID_INVALID', (e as Error).message, { rule: 'did-key' });
  }
  if (signature.length !== 64)
    return deny('IDENTITY_SIGNATURE_INVALID', `an Ed25519 signature is 64 bytes, got ${signature.length}`, {
      rule: 'ed25519',
    });
  const ok = verify(null, payload, key, signature);
  return ok
    ? allow('ed25519')
    : deny('IDENTITY_SIGNATURE_INVALID', `the signature does not verify for ${did}`, { rule: 'ed25519' });
}
