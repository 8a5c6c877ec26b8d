import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
} from 'node:crypto';
import { DEFAULT_MAX_JSON_DEPTH, TrustError, isTrustError, parseJsonWithLimits } from '@trust/core';
import { requireBase64UrlStrict } from '../identity/base64url.js';
import type { MessagePayload } from './message.js';
import {
  rawX25519Public,
  x25519PrivateFromEd25519Seed,
  x25519PrivateKey,
  x25519PublicFromEd25519,
  x25519PublicKey,
} from './x25519.js';

/** The content type of an encrypted payload. */
export const ENCRYPTED_CONTENT_TYPE = 'application/x-trust-encrypted';
const INFO = Buffer.from('trust-message-encryption-v1');

interface SealedFields {
  content: MessagePayload['content'];
  content_type: string;
  subject?: string;
  attachments?: MessagePayload['attachments'];
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const unb64u = (s: string, field: string) => requireBase64UrlStrict(s, field);

function deriveKey(shared: Uint8Array, epk: Uint8Array, recipient: Uint8Array): Buffer {
  // The salt binds the key to both public keys, so a key is never reused across recipients.
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([epk, recipient]), INFO, 32));
}

/** Additional data: who sent what to whom, so a ciphertext cannot be replayed into another message. */
function aad(from: string, to: string, id: string): Buffer {
  return Buffer.from(`${from}\n${to}\n${id}`);
}

/**
 * Encrypts the content, subject and attachments of a payload to the recipient's Ed25519 key:
 * an ephemeral X25519 key, ECDH, HKDF-SHA256 and AES-256-GCM. Thread and parent stay visible.
 */
export function encryptPayload(
  payload: MessagePayload,
  recipientEd25519: Uint8Array,
  binding: { from: string; to: string; id: string },
): MessagePayload {
  const recipient = x25519PublicFromEd25519(recipientEd25519);
  const eph = generateKeyPairSync('x25519');
  const epk = rawX25519Public(eph.publicKey);
  const shared = diffieHellman({ privateKey: eph.privateKey, publicKey: x25519PublicKey(recipient) });
  const key = deriveKey(shared, epk, recipient);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(binding.from, binding.to, binding.id));
  const sealed: SealedFields = { content: payload.content, content_type: payload.content_type };
  if (payload.subject !== undefined) sealed.subject = payload.subject;
  if (payload.attachments !== undefined) sealed.attachments = payload.attachments;
  const ct = Buffer.concat([cipher.update(JSON.stringify(sealed), 'utf8'), cipher.final()]);
  const { subject: _s, attachments: _a, signature: _sig, ...visible } = payload;
  return {
    ...visible,
    content: b64u(ct),
    content_type: ENCRYPTED_CONTENT_TYPE,
    enc: { v: 1, alg: 'X25519-HKDF-SHA256-A256GCM', epk: b64u(epk), iv: b64u(iv), tag: b64u(cipher.getAuthTag()) },
  };
}

/** Decrypts a payload encrypted with `encryptPayload`, using the recipient's Ed25519 seed. */
export function decryptPayload(
  payload: MessagePayload,
  recipientSeed: Uint8Array,
  binding: { from: string; to: string; id: string },
): MessagePayload {
  const enc = payload.enc;
  if (!enc || payload.content_type !== ENCRYPTED_CONTENT_TYPE || typeof payload.content !== 'string') {
    throw new TrustError('MESSAGE_DECRYPT_FAILED', 'the payload is not an encrypted payload', {
      hint: 'an encrypted payload has content_type application/x-trust-encrypted and an enc block',
    });
  }
  try {
    const priv = x25519PrivateFromEd25519Seed(recipientSeed);
    const privKey = x25519PrivateKey(priv);
    const recipient = rawX25519Public(createPublicKey(privKey));
    const epk = unb64u(enc.epk, 'enc.epk');
    const shared = diffieHellman({ privateKey: privKey, publicKey: x25519PublicKey(epk) });
    const key = deriveKey(shared, epk, recipient);
    const decipher = createDecipheriv('aes-256-gcm', key, unb64u(enc.iv, 'enc.iv'));
    decipher.setAAD(aad(binding.from, binding.to, binding.id));
    decipher.setAuthTag(unb64u(enc.tag, 'enc.tag'));
    const pt = Buffer.concat([decipher.update(unb64u(payload.content, 'content')), decipher.final()]).toString('utf8');
    // The sealed object takes the payload's place (one level below the envelope), so the
    // decrypted message stays within the same cap as a plain one.
    const sealed = parseJsonWithLimits(pt, { maxDepth: DEFAULT_MAX_JSON_DEPTH - 1 }) as SealedFields;
    const { enc: _e, signature: _sig, ...visible } = payload;
    const out: MessagePayload = { ...visible, content: sealed.content, content_type: sealed.content_type };
    if (sealed.subject !== undefined) out.subject = sealed.subject;
    if (sealed.attachments !== undefined) out.attachments = sealed.attachments;
    return out;
  } catch (cause) {
    if (isTrustError(cause, 'INPUT_TOO_DEEP')) throw cause;
    throw new TrustError('MESSAGE_DECRYPT_FAILED', 'the encrypted payload could not be decrypted', {
      cause,
      hint: 'the message was encrypted to another key, or it was altered in transit',
    });
  }
}
