import { randomUUID } from 'node:crypto';
import { encryptPayload } from './encryption.js';
import { stripTrustStamps, type AgentMessage, type MessagePayload, MESSAGE_VERSION } from './message.js';
import { envelopeSigningBytes, payloadSigningBytes } from './signing-bytes.js';

/** Signs with the sending agent's Ed25519 key. The key itself never leaves the signer. */
export interface MessageSigner {
  readonly did: string;
  sign(bytes: Uint8Array): Uint8Array;
}

export interface ComposeOptions {
  readonly to: string;
  readonly payload: Omit<MessagePayload, 'signature' | 'enc'>;
  readonly network?: string;
  readonly replyTo?: string;
  readonly meta?: Readonly<Record<string, unknown>>;
  /** Encrypt content, subject and attachments to this Ed25519 public key (the recipient's). */
  readonly encryptTo?: Uint8Array;
  readonly id?: string;
  readonly now?: () => number;
}

/**
 * Builds a signed message: encrypt (optional), sign the payload, then sign the envelope.
 * Trust stamps in `meta` are stripped: only a recipient's runtime sets them.
 *
 * @example
 * const msg = composeMessage(signer, { to: peerDid, payload: { content: 'hi', content_type: 'text/plain' } });
 */
export function composeMessage(signer: MessageSigner, options: ComposeOptions): AgentMessage {
  const id = options.id ?? randomUUID();
  const timestamp = new Date(options.now?.() ?? Date.now()).toISOString();
  let payload: MessagePayload = { ...options.payload };
  if (options.encryptTo) payload = encryptPayload(payload, options.encryptTo, { from: signer.did, to: options.to, id });
  payload = { ...payload, signature: b64u(signer.sign(payloadSigningBytes(payload))) };
  const message: AgentMessage = {
    v: MESSAGE_VERSION,
    network: options.network ?? 'local',
    id,
    timestamp,
    from: signer.did,
    to: options.to,
    payload,
  };
  if (options.replyTo !== undefined) message.reply_to = options.replyTo;
  const meta = stripTrustStamps(options.meta).meta;
  if (Object.keys(meta).length > 0) message.meta = meta;
  return { ...message, signature: b64u(signer.sign(envelopeSigningBytes(message))) };
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
