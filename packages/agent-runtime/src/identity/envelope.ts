import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  pbkdf2Sync,
  randomBytes,
  scryptSync,
  type KeyObject,
} from 'node:crypto';
import { TrustError } from '@trust/core';

/** Format version of sealed envelopes. */
export const ENVELOPE_VERSION = 1;
const DOMAIN = 'trust-adf-envelope-v1';
/** scrypt parameters for share-password slots: N=2^17, r=8, p=1, 32-byte salt. */
export const SCRYPT_PARAMS = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

/** An X25519 key pair for envelope slots (owner or runtime). */
export interface EnvelopeKeyPair {
  readonly publicKey: Uint8Array;
  readonly privateKey: KeyObject;
}

interface X25519Slot {
  kind: 'x25519';
  label: string;
  epk: string;
  iv: string;
  tag: string;
  wrapped: string;
}
interface PasswordSlot {
  kind: 'scrypt';
  label: string;
  salt: string;
  N: number;
  r: number;
  p: number;
  iv: string;
  tag: string;
  wrapped: string;
}
/** A sealed envelope, JSON-serialisable. Everything is base64url. */
export interface Envelope {
  readonly v: 1;
  /** Envelope name, e.g. `identity` or `credentials:mcp:gh:TOKEN`; bound into every key derivation. */
  readonly name: string;
  /** Random per-envelope id; bound into every key derivation. */
  readonly id: string;
  readonly alg: 'aes-256-gcm';
  readonly iv: string;
  readonly tag: string;
  readonly ct: string;
  readonly slots: ReadonlyArray<X25519Slot | PasswordSlot>;
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const unb64 = (s: string) => Buffer.from(s, 'base64url');

/** A fresh X25519 key pair. */
export function createEnvelopeKeyPair(): EnvelopeKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return { publicKey: rawX25519(publicKey), privateKey };
}

function rawX25519(key: KeyObject): Uint8Array {
  return Uint8Array.from(unb64(key.export({ format: 'jwk' }).x as string));
}
function x25519Public(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: b64(raw) }, format: 'jwk' });
}

function gcm(key: Uint8Array, plaintext: Uint8Array, aad: string): { iv: string; tag: string; ct: string } {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([c.update(plaintext), c.final()]);
  return { iv: b64(iv), tag: b64(c.getAuthTag()), ct: b64(ct) };
}
function ungcm(key: Uint8Array, box: { iv: string; tag: string; ct: string }, aad: string): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, unb64(box.iv));
  d.setAAD(Buffer.from(aad));
  d.setAuthTag(unb64(box.tag));
  return Buffer.concat([d.update(unb64(box.ct)), d.final()]);
}

function slotKey(
  shared: Uint8Array,
  epk: Uint8Array,
  recipient: Uint8Array,
  env: { name: string; id: string },
  label: string,
): Uint8Array {
  const info = `${DOMAIN}:${env.name}:${env.id}:${label}`;
  return new Uint8Array(hkdfSync('sha256', shared, Buffer.concat([epk, recipient]), info, 32));
}

/**
 * Seals `plaintext` under a fresh DEK (AES-256-GCM) and wraps the DEK to each recipient with
 * ephemeral X25519 + HKDF-SHA256 (info binds envelope name, id and slot label), plus an optional
 * share-password slot (scrypt N=2^17 r=8 p=1). The `identity` envelope refuses a password slot,
 * so a shared file can never carry the agent's signing key out.
 *
 * @example
 * const env = sealEnvelope('credentials:api', bytes, { recipients: [{ label: 'owner', publicKey: owner.publicKey }] });
 */
export function sealEnvelope(
  name: string,
  plaintext: Uint8Array,
  options: { recipients: ReadonlyArray<{ label: string; publicKey: Uint8Array }>; password?: string },
): Envelope {
  if (name === 'identity' && options.password !== undefined) {
    throw new TrustError(
      'IDENTITY_PASSWORD_SLOT_REFUSED',
      'the identity envelope never gets a password slot: a shared file must not be able to sign as the agent',
      { hint: 'share credentials with a password; the recipient claims the agent under a new identity' },
    );
  }
  if (options.recipients.length === 0 && options.password === undefined)
    throw new TrustError('ENVELOPE_NO_RECIPIENT', 'an envelope needs at least one recipient');
  const id = b64(randomBytes(16));
  const dek = randomBytes(32);
  const aad = `${DOMAIN}:${name}:${id}`;
  const body = gcm(dek, plaintext, aad);
  const slots: Array<X25519Slot | PasswordSlot> = [];
  for (const r of options.recipients) {
    const eph = generateKeyPairSync('x25519');
    const epk = rawX25519(eph.publicKey);
    const shared = diffieHellman({ privateKey: eph.privateKey, publicKey: x25519Public(r.publicKey) });
    const key = slotKey(shared, epk, r.publicKey, { name, id }, r.label);
    const w = gcm(key, dek, `${aad}:slot:${r.label}`);
    slots.push({ kind: 'x25519', label: r.label, epk: b64(epk), iv: w.iv, tag: w.tag, wrapped: w.ct });
  }
  if (options.password !== undefined) {
    const salt = randomBytes(32);
    const key = scryptSync(options.password.normalize('NFC'), salt, 32, {
      ...SCRYPT_PARAMS,
      maxmem: 256 * 1024 * 1024,
    });
    const w = gcm(key, dek, `${aad}:slot:password`);
    slots.push({
      kind: 'scrypt',
      label: 'password',
      salt: b64(salt),
      ...SCRYPT_PARAMS,
      iv: w.iv,
      tag: w.tag,
      wrapped: w.ct,
    });
  }
  return Object.freeze({ v: ENVELOPE_VERSION, name, id, alg: 'aes-256-gcm', ...body, slots });
}

/**
 * Opens an envelope with an X25519 private key (trying each x25519 slot) or the share password.
 * Throws `ENVELOPE_SEALED` when no slot opens.
 */
export function openEnvelope(envelope: Envelope, key: { privateKey: KeyObject } | { password: string }): Uint8Array {
  if (envelope.v !== ENVELOPE_VERSION || envelope.alg !== 'aes-256-gcm')
    throw new TrustError('ENVELOPE_UNSUPPORTED', `unsupported envelope format v${String(envelope.v)}`);
  const aad = `${DOMAIN}:${envelope.name}:${envelope.id}`;
  for (const slot of envelope.slots) {
    try {
      let k: Uint8Array;
      if (slot.kind === 'x25519' && 'privateKey' in key) {
        const mine = rawX25519(createPublicKey(key.privateKey));
        const epk = unb64(slot.epk);
        const shared = diffieHellman({ privateKey: key.privateKey, publicKey: x25519Public(epk) });
        k = slotKey(shared, epk, mine, envelope, slot.label);
      } else if (slot.kind === 'scrypt' && 'password' in key) {
        if (slot.N > 2 ** 20 || slot.r > 16 || slot.p > 4) continue; // refuse attacker-chosen cost
        k = scryptSync(key.password.normalize('NFC'), unb64(slot.salt), 32, {
          N: slot.N,
          r: slot.r,
          p: slot.p,
          maxmem: 512 * 1024 * 1024,
        });
      } else continue;
      const dek = ungcm(
        k,
        { iv: slot.iv, tag: slot.tag, ct: slot.wrapped },
        `${aad}:slot:${slot.kind === 'scrypt' ? 'password' : slot.label}`,
      );
      return Uint8Array.from(ungcm(dek, envelope, aad));
    } catch {
      /* wrong slot: try the next */
    }
  }
  throw new TrustError('ENVELOPE_SEALED', `envelope "${envelope.name}" cannot be opened with this key`, {
    hint: 'the file was sealed for another owner or runtime',
  });
}

/** Restores an X25519 private key from PKCS#8 DER. */
export function envelopeKeyFromPkcs8(der: Uint8Array): EnvelopeKeyPair {
  const privateKey = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: rawX25519(createPublicKey(privateKey)) };
}

/**
 * Reads a legacy password-encrypted row: PBKDF2-SHA512 (100,000 iterations, 32-byte salt) then
 * AES-256-GCM over `iv(12) ‖ ciphertext ‖ tag(16)`. Read support only; new rows are sealed.
 */
export function openLegacyPasswordRow(
  value: Uint8Array,
  salt: Uint8Array,
  password: string,
  iterations = 100_000,
): Uint8Array {
  if (iterations < 10_000 || iterations > 10_000_000)
    throw new TrustError('ENVELOPE_UNSUPPORTED', `legacy row iteration count ${iterations} is out of range`);
  const key = pbkdf2Sync(password, salt, iterations, 32, 'sha512');
  const buf = Buffer.from(value);
  try {
    const d = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
    d.setAuthTag(buf.subarray(buf.length - 16));
    return Uint8Array.from(Buffer.concat([d.update(buf.subarray(12, buf.length - 16)), d.final()]));
  } catch (cause) {
    throw new TrustError('ENVELOPE_SEALED', 'the legacy row does not open with this password', { cause });
  }
}
