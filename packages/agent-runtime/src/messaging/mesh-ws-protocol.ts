import { decodeBase64UrlStrict } from '../identity/base64url.js';
import { randomBytes } from 'node:crypto';
import { allow, canonicalJson, deny, type Decision } from '@trust/core';
import { z } from 'zod';
import { verifyDidSignature } from '../identity/did-key.js';
import type { MessageSigner } from './compose.js';
import type { DidVerifier } from './ingress.js';
import { MAX_MESSAGE_BYTES } from './message.js';

/** The WebSocket mesh route: `GET /mesh/v1/ws/<recipient did>` upgraded to a WebSocket. */
export const MESH_WS_PREFIX = '/mesh/v1/ws/';

/** The version every mesh WebSocket frame carries (`v`). */
export const MESH_WS_VERSION = 1;

/**
 * Close codes the server uses (4000-4999 is the private range of RFC 6455). The reason text
 * names the code, e.g. `MESH_WS_AUTH_FAILED: the handshake signature does not verify`.
 */
export const MESH_WS_CLOSE = Object.freeze({
  /** A frame that is not a v1 JSON frame of the expected type. */
  PROTOCOL: 4400,
  /** The handshake failed: bad signature, wrong server DID, stale timestamp, reused nonce. */
  AUTH_FAILED: 4401,
  /** No handshake answer before the deadline, or no frame for the idle timeout. */
  TIMEOUT: 4408,
  /** Too many frames or bytes per second, or too many messages waiting for ingress. */
  RATE_LIMITED: 4429,
  /** Binary frames are not part of the protocol (RFC 6455 "unsupported data"). */
  UNSUPPORTED_DATA: 1003,
  /** A frame over the size limit (RFC 6455 "message too big"). */
  TOO_BIG: 1009,
  /** The server is shutting down. */
  GOING_AWAY: 1001,
});

/** Largest frame: one message of {@link MAX_MESSAGE_BYTES} plus the frame wrapper. */
export const MESH_WS_MAX_FRAME_BYTES = MAX_MESSAGE_BYTES + 1024;

// Its own tag, so a handshake signature can never pass as a message or payload signature
// (those are tagged trust-message-*), nor the reverse.
const AUTH_TAG = 'trust-mesh-ws-auth-v1\n';
const encoder = new TextEncoder();

const didString = z
  .string()
  .min(8)
  .max(256)
  .regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/, 'a DID such as did:key:z6Mk…');

/** Server → client, first frame: the nonce the client must sign. */
export const challengeFrameSchema = z
  .object({
    v: z.literal(MESH_WS_VERSION).describe('frame format version'),
    type: z.literal('challenge'),
    nonce: z.string().min(16).max(128).describe('fresh random nonce from the server, base64url'),
    server_did: didString.describe('the agent this socket delivers to'),
    expires_in_ms: z.number().int().positive().describe('how long the server waits for the answer'),
  })
  .strict();

/** Client → server, the one frame allowed before authentication. */
export const authFrameSchema = z
  .object({
    v: z.literal(MESH_WS_VERSION).describe('frame format version'),
    type: z.literal('auth'),
    did: didString.describe('the client agent DID; its key signs the handshake'),
    timestamp: z.string().datetime({ offset: true }).describe('ISO-8601 time of signing'),
    signature: z.string().min(16).max(256).describe('Ed25519 signature of the handshake transcript, base64url'),
  })
  .strict();

/** Client → server after `ready`: one agent message per frame. */
export const messageFrameSchema = z
  .object({
    v: z.literal(MESH_WS_VERSION).describe('frame format version'),
    type: z.literal('message'),
    message: z.record(z.string(), z.unknown()).describe('a signed agent message (v1 format); ingress checks it'),
  })
  .strict();

/** Server → client: the socket is authenticated as `did`. */
export const readyFrameSchema = z
  .object({ v: z.literal(MESH_WS_VERSION), type: z.literal('ready'), did: didString })
  .strict();

/** Server → client: the verdict of ingress on one message. */
export const ackFrameSchema = z
  .object({
    v: z.literal(MESH_WS_VERSION),
    type: z.literal('ack'),
    id: z.string().max(128).nullable().describe('the message id, when the frame had one'),
    accepted: z.boolean(),
    code: z.string().max(64).optional(),
    reason: z.string().max(512).optional(),
    hint: z.string().max(512).optional(),
  })
  .strict();

export type ChallengeFrame = z.infer<typeof challengeFrameSchema>;
export type AuthFrame = z.infer<typeof authFrameSchema>;
export type MessageFrame = z.infer<typeof messageFrameSchema>;
export type ReadyFrame = z.infer<typeof readyFrameSchema>;
export type AckFrame = z.infer<typeof ackFrameSchema>;

/** The fields the handshake signature binds. */
export interface MeshWsTranscript {
  /** The server-issued nonce of this connection. */
  readonly nonce: string;
  readonly clientDid: string;
  /** The recipient agent, i.e. the `<did>` of the path the client connected to. */
  readonly serverDid: string;
  readonly timestamp: string;
}

/**
 * The bytes a client signs: a domain tag plus the JCS form of the transcript. Binding the
 * server nonce and both DIDs means a captured answer is useless on any other connection and
 * at any other agent.
 *
 * @example
 * const bytes = meshWsAuthBytes({ nonce, clientDid: me.did, serverDid: peerDid, timestamp: new Date().toISOString() });
 */
export function meshWsAuthBytes(t: MeshWsTranscript): Uint8Array {
  return encoder.encode(
    AUTH_TAG +
      canonicalJson({
        v: MESH_WS_VERSION,
        purpose: 'mesh-ws-auth',
        nonce: t.nonce,
        client_did: t.clientDid,
        server_did: t.serverDid,
        timestamp: t.timestamp,
      }),
  );
}

/** A fresh server nonce: 32 random bytes, base64url. */
export function createMeshWsNonce(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The client's answer to a challenge, signed with its key. `serverDid` is the DID the client
 * meant to reach (from its own address book, not from the challenge).
 *
 * @example
 * const auth = signMeshWsAuth(identity, challenge.nonce, recipientDid);
 * socket.send(JSON.stringify(auth));
 */
export function signMeshWsAuth(
  signer: MessageSigner,
  nonce: string,
  serverDid: string,
  now: () => number = Date.now,
): AuthFrame {
  const timestamp = new Date(now()).toISOString();
  const signature = Buffer.from(
    signer.sign(meshWsAuthBytes({ nonce, clientDid: signer.did, serverDid, timestamp })),
  ).toString('base64url');
  return { v: MESH_WS_VERSION, type: 'auth', did: signer.did, timestamp, signature };
}

/** What the server knows when it judges an answer: its own nonce and DID, never the client's copy. */
export interface MeshWsAuthQuery {
  readonly frame: unknown;
  readonly nonce: string;
  readonly serverDid: string;
  readonly now: number;
  /** How far the signed timestamp may be from the server clock. Default 60 s. */
  readonly skewMs?: number;
  readonly verify?: DidVerifier;
}

/**
 * Judges a handshake answer. Order: shape, timestamp window, signature over the transcript the
 * SERVER rebuilds from its own nonce and DID. An answer signed for another nonce or another
 * server DID fails the signature check.
 *
 * @example
 * const d = evaluateMeshWsAuth({ frame, nonce, serverDid, now: Date.now() });
 * if (!d.allow) socket.close(MESH_WS_CLOSE.AUTH_FAILED, `${d.code}: ${d.reason}`);
 */
export function evaluateMeshWsAuth(q: MeshWsAuthQuery): Decision {
  const parsed = authFrameSchema.safeParse(q.frame);
  if (!parsed.success)
    return deny('MESH_WS_AUTH_MALFORMED', 'the first frame is not a v1 auth frame', {
      rule: 'mesh-ws-handshake',
      hint: 'answer the challenge with {v:1,type:"auth",did,timestamp,signature}',
    });
  const frame = parsed.data;
  const signedAt = Date.parse(frame.timestamp);
  if (!Number.isFinite(signedAt) || Math.abs(q.now - signedAt) > (q.skewMs ?? 60_000)) {
    return deny('MESH_WS_AUTH_STALE', 'the handshake timestamp is outside the accepted window', {
      rule: 'mesh-ws-handshake',
      hint: 'check the client clock',
    });
  }
  const signature = decodeBase64UrlStrict(frame.signature);
  if (signature === undefined) {
    return deny('MESH_WS_AUTH_MALFORMED', 'the handshake signature is not canonical base64url', {
      rule: 'mesh-ws-handshake',
      hint: 'encode the 64 signature bytes as base64url without padding',
    });
  }
  const bytes = meshWsAuthBytes({
    nonce: q.nonce,
    clientDid: frame.did,
    serverDid: q.serverDid,
    timestamp: frame.timestamp,
  });
  const verdict = (q.verify ?? verifyDidSignature)(frame.did, bytes, signature);
  if (!verdict.allow) {
    return deny('MESH_WS_AUTH_FAILED', 'the handshake signature does not verify for this connection and this agent', {
      rule: 'mesh-ws-handshake',
      hint: "sign this connection's nonce, your DID and the recipient DID from the path",
    });
  }
  return allow('mesh-ws-handshake');
}
