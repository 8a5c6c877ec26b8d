import { canonicalJson } from '@trust/core';
import type { AgentMessage, MessagePayload } from './message.js';

// Domain tags keep a payload signature from ever verifying as an envelope signature (and the
// reverse), and keep both apart from any other Ed25519 use of the same key.
const ENVELOPE_TAG = 'trust-message-envelope-v1\n';
const PAYLOAD_TAG = 'trust-message-payload-v1\n';
const encoder = new TextEncoder();

/** Bytes the payload signature covers: the tag plus JCS of the payload without its signature. */
export function payloadSigningBytes(payload: MessagePayload): Uint8Array {
  const { signature: _ignored, ...rest } = payload;
  return encoder.encode(PAYLOAD_TAG + canonicalJson(rest));
}

/** Bytes the envelope signature covers: the tag plus JCS of the message without its signature. */
export function envelopeSigningBytes(message: AgentMessage): Uint8Array {
  const { signature: _ignored, ...rest } = message;
  return encoder.encode(ENVELOPE_TAG + canonicalJson(rest));
}
