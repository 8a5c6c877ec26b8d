import { z } from 'zod';

/** The current version of the agent message format. */
export const MESSAGE_VERSION = 1;

/** Largest serialised message ingress accepts, in bytes, unless configured lower. */
export const MAX_MESSAGE_BYTES = 256 * 1024;

/** Trust stamps: set only by the runtime after verification, never taken from the wire. */
export const TRUST_STAMPS = Object.freeze([
  'identity_verified',
  'payload_encrypted',
  'message_verified',
  'payload_verified',
  'ws_remote_did',
] as const);

/** Display names no sender may claim: they belong to the owner and the runtime. */
export const RESERVED_ALIASES = Object.freeze(['owner', 'system', 'user']);

const did = z
  .string()
  .min(8)
  .max(256)
  .regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/, 'a DID such as did:key:z6Mk…');

const attachmentSchema = z
  .object({
    name: z.string().min(1).max(255).describe('file name shown to the recipient'),
    content_type: z.string().min(1).max(127).describe('MIME type of the data'),
    data: z.string().max(MAX_MESSAGE_BYTES).describe('base64 data, inline'),
  })
  .strict();

const encryptionSchema = z
  .object({
    v: z.literal(1).describe('encryption format version'),
    alg: z.literal('X25519-HKDF-SHA256-A256GCM').describe('the only algorithm'),
    epk: z.string().describe('ephemeral X25519 public key, base64url'),
    iv: z.string().describe('AES-GCM nonce, base64url'),
    tag: z.string().describe('AES-GCM tag, base64url'),
  })
  .strict();

export const payloadSchema = z
  .object({
    thread: z.string().max(128).optional().describe('conversation thread id'),
    parent: z.string().max(128).optional().describe('id of the message this answers'),
    subject: z.string().max(512).optional().describe('one-line subject'),
    sender_alias: z
      .string()
      .max(64)
      .optional()
      .describe('display name the sender asks for; reserved names are refused'),
    content: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .describe('text, JSON, or ciphertext when encrypted'),
    content_type: z.string().min(1).max(127).describe('MIME type of content'),
    attachments: z.array(attachmentSchema).max(16).optional().describe('inline attachments'),
    enc: encryptionSchema.optional().describe('present when content is encrypted to the recipient'),
    signature: z.string().max(256).optional().describe('Ed25519 signature of the payload, base64url'),
  })
  .strict();

/** Shape of an agent message on the wire (format `v: 1`). */
export const messageSchema = z
  .object({
    v: z.literal(MESSAGE_VERSION).describe('message format version'),
    network: z.string().min(1).max(64).describe('which mesh the message belongs to, e.g. "local"'),
    id: z.string().min(8).max(128).describe('unique message id, e.g. a UUID'),
    timestamp: z.string().datetime({ offset: true }).describe('ISO-8601 time of sending'),
    from: did.describe('sender DID; must match the signing key'),
    to: did.describe('recipient DID'),
    reply_to: z.string().url().max(2048).optional().describe('URL where replies are delivered'),
    meta: z.record(z.string(), z.unknown()).optional().describe('open metadata; trust stamps are stripped'),
    payload: payloadSchema,
    signature: z.string().max(256).optional().describe('Ed25519 signature of the whole message, base64url'),
  })
  .strict();

export type AgentMessage = z.infer<typeof messageSchema>;
export type MessagePayload = z.infer<typeof payloadSchema>;
export type MessageAttachment = z.infer<typeof attachmentSchema>;
export type TrustStamp = (typeof TRUST_STAMPS)[number];

/** Removes every trust stamp from a metadata record; returns the names that were present. */
export function stripTrustStamps(meta: Readonly<Record<string, unknown>> | undefined): {
  meta: Record<string, unknown>;
  stripped: string[];
} {
  const out: Record<string, unknown> = {};
  const stripped: string[] = [];
  for (const [k, v] of Object.entries(meta ?? {})) {
    if ((TRUST_STAMPS as readonly string[]).includes(k) || k === 'source') stripped.push(k);
    else out[k] = v;
  }
  return { meta: out, stripped };
}
