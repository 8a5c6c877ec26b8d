import type { TrustErrorCode } from '@trust/core';
import { checkOptions } from '../options/strict-options.js';
import { ingressOptionsSchema } from './messaging-options.js';
import {
  DEFAULT_MAX_JSON_DEPTH,
  checkJsonText,
  deny,
  isTrustError,
  type AuditSink,
  type Decision,
  type Deny,
} from '@trust/core';
import { decodeBase64UrlStrict } from '../identity/base64url.js';
import { verifyDidSignature } from '../identity/did-key.js';
import { decryptPayload, ENCRYPTED_CONTENT_TYPE } from './encryption.js';
import type { IngressSettings } from './ingress-settings.js';
import {
  MAX_MESSAGE_BYTES,
  RESERVED_ALIASES,
  messageSchema,
  stripTrustStamps,
  type AgentMessage,
  type MessagePayload,
  type TrustStamp,
} from './message.js';
import type { ReplayGuard } from './replay-guard.js';
import { envelopeSigningBytes, payloadSigningBytes } from './signing-bytes.js';

/** Verifies an Ed25519 signature by the key a DID names. Denies anything it cannot verify. */
export type DidVerifier = (did: string, bytes: Uint8Array, signature: Uint8Array) => Decision;

/** How a message arrived. Only the runtime says this; nothing on the wire can. */
export interface IngressContext {
  readonly transport: 'http' | 'ws' | 'local';
  /** The DID a WebSocket peer proved at connect time, when the transport authenticated one. */
  readonly wsRemoteDid?: string;
}

/** Inbox middleware: may replace the message or reject it. A throw rejects (fail closed). */
export type InboxMiddleware = (
  message: AgentMessage,
  stamps: Readonly<Partial<Record<TrustStamp, unknown>>>,
) => Promise<{ action: 'accept'; message?: AgentMessage } | { action: 'reject'; code: TrustErrorCode; reason: string }>;

/** What ingress stores: the verified message, its runtime stamps and where it came from. */
export interface InboxRecord {
  readonly message: AgentMessage;
  readonly stamps: Readonly<Partial<Record<TrustStamp, unknown>>>;
  /** Always a network source; `user` (the owner's voice) can never arrive here. */
  readonly source: 'mesh' | 'ws' | 'local';
  readonly receivedAt: string;
  /** The bytes as received, for the record. */
  readonly original: string;
  /** Wire-supplied stamp or alias values that were removed. */
  readonly stripped: readonly string[];
}

export type IngressResult =
  | { readonly accepted: true; readonly record: InboxRecord }
  | { readonly accepted: false; readonly decision: Deny };

export interface IngressOptions {
  readonly self: { readonly did: string; readonly seed?: () => Uint8Array };
  readonly settings: () => IngressSettings;
  /** Defaults to Ed25519 verification of `did:key` senders. */
  readonly verify?: DidVerifier;
  readonly replay: ReplayGuard;
  readonly now: () => number;
  readonly store: (record: InboxRecord) => void;
  readonly middleware?: readonly InboxMiddleware[];
  readonly audit?: AuditSink;
}

/** The single ingress function every transport calls. */
export type IngestFunction = (raw: string | Uint8Array, ctx: IngressContext) => Promise<IngressResult>;

/** The one ingress path: mesh HTTP, WebSocket and local delivery all call the function this returns. */
export function createIngress(input: IngressOptions): IngestFunction {
  const options = checkOptions('createIngress', ingressOptionsSchema, input);
  const verify = options.verify ?? verifyDidSignature;

  return async function ingest(raw, ctx) {
    const settings = options.settings();
    /** One `message.receive` audit event per message, accepted or refused. */
    const auditReceive = (
      from: string,
      decision: 'allow' | 'deny',
      extra: { code?: string; details?: Record<string, unknown> },
    ): void => {
      options.audit?.record({
        principal: { kind: 'peer', id: from },
        action: 'message.receive',
        target: options.self.did,
        decision,
        rule: 'ingress',
        ...(extra.code === undefined ? {} : { code: extra.code }),
        details: { transport: ctx.transport, ...extra.details },
      });
    };
    const reject = (code: TrustErrorCode, reason: string, hint?: string, from = 'unknown'): IngressResult => {
      const decision = deny(code, reason, hint === undefined ? { rule: 'ingress' } : { rule: 'ingress', hint });
      auditReceive(from, 'deny', { code });
      return { accepted: false, decision };
    };

    if (!settings.receive)
      return reject(
        'MESSAGE_RECEIVE_OFF',
        'this agent does not receive messages',
        'the owner turns on messaging.receive',
      );

    // 1. size and shape (the size is checked before any bytes are decoded)
    const limit = Math.min(settings.maxBytes, MAX_MESSAGE_BYTES);
    const size = typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : raw.byteLength;
    if (size > limit)
      return reject(
        'MESSAGE_TOO_LARGE',
        `the message is larger than ${limit} bytes`,
        'send a smaller message or a reference',
      );
    const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
    // Nesting is checked on the raw text, before parsing, schema validation or canonicalisation
    // (all recursive) and before the replay memory sees the id.
    const shape = checkJsonText(text, { maxDepth: DEFAULT_MAX_JSON_DEPTH });
    if (!shape.allow) return reject(shape.code, `the message ${shape.reason.replace(/^the input /, '')}`, shape.hint);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return reject('MESSAGE_MALFORMED', 'the message is not JSON');
    }
    const parsed = messageSchema.safeParse(json);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      return reject(
        'MESSAGE_MALFORMED',
        `the message does not have the v1 shape (${first?.path.join('.') || 'root'}: ${first?.message})`,
        'see the message format in the package README',
      );
    }
    const wire = parsed.data;
    const from = wire.from;

    // 1b. a WebSocket delivers only for the DID its handshake proved (set by the runtime, never the wire)
    if (ctx.transport === 'ws') {
      if (ctx.wsRemoteDid === undefined)
        return reject(
          'MESSAGE_WS_UNAUTHENTICATED',
          'the WebSocket did not authenticate a sender',
          'complete the mesh handshake before sending',
          from,
        );
      if (from !== ctx.wsRemoteDid) {
        return reject(
          'MESSAGE_WS_SENDER_MISMATCH',
          'the message is from another DID than the one this WebSocket authenticated',
          'send only your own messages on your socket',
          from,
        );
      }
    }

    // 2. addressed to us
    if (wire.to !== options.self.did)
      return reject('MESSAGE_WRONG_RECIPIENT', 'the message is addressed to another agent', undefined, from);

    // 3. fresh and not seen before
    const now = options.now();
    const sent = Date.parse(wire.timestamp);
    if (!Number.isFinite(sent) || Math.abs(now - sent) > settings.skewMs) {
      return reject(
        'MESSAGE_STALE',
        'the message timestamp is outside the accepted window',
        'check the sender clock',
        from,
      );
    }
    if (options.replay.has(wire.id))
      return reject('MESSAGE_REPLAYED', `message id ${wire.id} was already received`, undefined, from);

    // 4. signatures: the envelope over the wire form, the payload over its wire form
    // One accepted spelling per signature: a lenient decoder would let many strings verify.
    const envelopeSig = wire.signature === undefined ? undefined : decodeBase64UrlStrict(wire.signature);
    const payloadSig = wire.payload.signature === undefined ? undefined : decodeBase64UrlStrict(wire.payload.signature);
    if (wire.signature !== undefined && envelopeSig === undefined) {
      return reject(
        'MESSAGE_SIGNATURE_INVALID',
        'the message signature is not canonical base64url',
        'encode the 64 signature bytes as base64url without padding',
        from,
      );
    }
    if (wire.payload.signature !== undefined && payloadSig === undefined) {
      return reject(
        'MESSAGE_PAYLOAD_SIGNATURE_INVALID',
        'the payload signature is not canonical base64url',
        'encode the 64 signature bytes as base64url without padding',
        from,
      );
    }
    const messageVerified = envelopeSig !== undefined && verify(from, envelopeSigningBytes(wire), envelopeSig).allow;
    const payloadVerified =
      payloadSig !== undefined && verify(from, payloadSigningBytes(wire.payload), payloadSig).allow;
    if (envelopeSig !== undefined && !messageVerified)
      return reject(
        'MESSAGE_SIGNATURE_INVALID',
        'the message signature does not verify against the sender DID',
        undefined,
        from,
      );
    if (payloadSig !== undefined && !payloadVerified)
      return reject(
        'MESSAGE_PAYLOAD_SIGNATURE_INVALID',
        'the payload signature does not verify against the sender DID',
        undefined,
        from,
      );

    // 5. signature requirements, independent of allow_unsigned
    if (settings.requireSignature && !messageVerified)
      return reject(
        'MESSAGE_UNSIGNED',
        'this agent requires signed messages',
        'sign the message with the sender DID key',
        from,
      );
    if (settings.requirePayloadSignature && !payloadVerified) {
      return reject(
        'MESSAGE_PAYLOAD_UNSIGNED',
        'this agent requires signed payloads',
        'sign the payload as well as the envelope',
        from,
      );
    }
    if (!messageVerified && !settings.allowUnsigned)
      return reject(
        'MESSAGE_UNSIGNED',
        'unsigned messages are not accepted',
        'sign the message, or the owner enables security.allow_unsigned',
        from,
      );

    // 6. allow and block lists judge only a verified sender
    if (settings.allowList.length > 0 && !(messageVerified && settings.allowList.includes(from))) {
      return reject(
        'MESSAGE_SENDER_NOT_ALLOWED',
        'the sender is not on the allow list',
        'the owner adds the sender DID to messaging.allow_list',
        from,
      );
    }
    if (messageVerified && settings.blockList.includes(from) && !settings.allowList.includes(from)) {
      return reject('MESSAGE_SENDER_BLOCKED', 'the sender is blocked', undefined, from);
    }
    if (!options.replay.remember(wire.id, sent + settings.skewMs))
      return reject('MESSAGE_RATE_LIMITED', 'too many recent messages to track', 'try again later', from);
    // The id is held from here (so a concurrent copy is refused as a replay) but released again
    // if this message is refused below: a refused message never burns its id.
    const refuse = (code: TrustErrorCode, reason: string, hint?: string): IngressResult => {
      options.replay.forget(wire.id);
      return reject(code, reason, hint, from);
    };

    let payload: MessagePayload = wire.payload;
    let encrypted = false;
    if (payload.content_type === ENCRYPTED_CONTENT_TYPE || payload.enc) {
      if (!options.self.seed) return refuse('MESSAGE_DECRYPT_FAILED', 'this agent has no key to decrypt with');
      try {
        payload = decryptPayload(payload, options.self.seed(), { from, to: wire.to, id: wire.id });
        encrypted = true;
      } catch (err) {
        if (isTrustError(err, 'INPUT_TOO_DEEP'))
          return refuse(err.code, `the decrypted payload ${err.message.replace(/^the input /, '')}`, err.hint);
        return refuse('MESSAGE_DECRYPT_FAILED', 'the encrypted payload could not be decrypted');
      }
    }

    // Stamps come from the runtime only; wire copies and reserved aliases are removed.
    const { meta, stripped } = stripTrustStamps(wire.meta);
    const stamps: Partial<Record<TrustStamp, unknown>> = {
      message_verified: messageVerified,
      payload_verified: payloadVerified,
      identity_verified: messageVerified,
      payload_encrypted: encrypted,
    };
    if (ctx.transport === 'ws' && ctx.wsRemoteDid !== undefined) stamps.ws_remote_did = ctx.wsRemoteDid;
    if (payload.sender_alias !== undefined && RESERVED_ALIASES.includes(payload.sender_alias.trim().toLowerCase())) {
      stripped.push('sender_alias');
      const { sender_alias: _alias, ...rest } = payload;
      payload = rest;
    }
    const { signature: _s, ...unsigned } = wire;
    let message: AgentMessage = { ...unsigned, meta, payload };

    // 7. middleware, failing closed
    for (const mw of options.middleware ?? []) {
      let verdict: Awaited<ReturnType<InboxMiddleware>>;
      try {
        verdict = await mw(message, stamps);
      } catch {
        return refuse(
          'MESSAGE_MIDDLEWARE_FAILED',
          'inbox middleware failed, so the message was rejected',
          'fix the middleware lambda; errors never let a message through',
        );
      }
      if (verdict.action === 'reject') return refuse(verdict.code, verdict.reason);
      if (verdict.message) {
        const again = messageSchema.safeParse(verdict.message);
        if (!again.success || again.data.from !== from || again.data.to !== wire.to || again.data.id !== wire.id) {
          return refuse(
            'MESSAGE_MIDDLEWARE_FAILED',
            'inbox middleware returned an invalid message',
            'middleware may change the payload, not who sent it',
          );
        }
        message = { ...again.data, meta: stripTrustStamps(again.data.meta).meta };
      }
    }

    // 8. storage
    const record: InboxRecord = {
      message,
      stamps: Object.freeze(stamps),
      source: ctx.transport === 'http' ? 'mesh' : ctx.transport,
      receivedAt: new Date(now).toISOString(),
      original: text,
      stripped,
    };
    try {
      options.store(record);
    } catch (err) {
      options.replay.forget(wire.id);
      throw err;
    }
    auditReceive(from, 'allow', { details: { id: wire.id, verified: messageVerified, encrypted } });
    return { accepted: true, record };
  };
}
