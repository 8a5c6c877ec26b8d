import type { AuditSink, Principal, TrustErrorCode } from '@trust/core';
import { checkOptions } from '../options/strict-options.js';
import { agentMessagingOptionsSchema } from './messaging-options.js';
import type { AdfFile } from '../adf/adf-file.js';
import type { AgentConfig } from '../config/agent-config-schema.js';
import type { ToolDefinition } from '../gate/tool-definition.js';
import type { AgentIdentity } from '../identity/did-key.js';
import { publicKeyFromDidKey } from '../identity/did-key.js';
import { composeMessage } from './compose.js';
import { deliverMessage, type DeliveryFetch, type DeliveryResult } from './delivery.js';
import { createIngress, type InboxMiddleware, type InboxRecord, type IngestFunction } from './ingress.js';
import { DEFAULT_INGRESS_SETTINGS, type IngressSettings } from './ingress-settings.js';
import type { LocalMesh } from './local-mesh.js';
import { MAX_MESSAGE_BYTES, type AgentMessage } from './message.js';
import { createReplayGuard } from './replay-guard.js';
import { identitySeed } from './seed.js';

/** What ingress enforces for an agent, read from its config on every message. */
export function ingressSettingsFromConfig(config: AgentConfig): IngressSettings {
  return {
    ...DEFAULT_INGRESS_SETTINGS,
    receive: config.messaging.receive,
    requireSignature: config.security.require_signature,
    allowUnsigned: config.security.allow_unsigned,
    requirePayloadSignature: config.security.require_payload_signature,
    allowList: config.messaging.allow_list,
    blockList: config.messaging.block_list,
  };
}

/** What outbox middleware sees of a message before it is signed: the sender's draft. */
export interface OutboundDraft {
  readonly to: string;
  readonly content: string;
  readonly content_type: string;
  readonly subject?: string;
  readonly thread?: string;
  readonly parent?: string;
}

/**
 * Outbox middleware: runs before the message is signed, so a rewrite is what gets signed. It may
 * change the content, content type and subject, never the recipient or thread. A throw rejects.
 */
export type OutboxMiddleware = (
  draft: OutboundDraft,
) => Promise<{ action: 'accept'; draft?: OutboundDraft } | { action: 'reject'; code: TrustErrorCode; reason: string }>;

export interface AgentMessagingOptions {
  readonly adf: AdfFile;
  readonly identity: AgentIdentity;
  readonly mesh?: LocalMesh;
  readonly egress?: DeliveryFetch;
  readonly middleware?: readonly InboxMiddleware[];
  /** Run in order on every message this agent sends, before signing; [] or absent: none. */
  readonly outboxMiddleware?: readonly OutboxMiddleware[];
  readonly audit?: AuditSink;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface SendRequest {
  readonly to: string;
  readonly content: string;
  readonly contentType?: string;
  readonly subject?: string;
  readonly thread?: string;
  readonly parent?: string;
  /**
   * Base URL of the recipient's runtime: `http(s)://` posts to its mesh inbox, `ws(s)://` uses an
   * authenticated mesh WebSocket. Omitted for agents in this process's mesh.
   */
  readonly address?: string;
  readonly encrypt?: boolean;
  readonly meta?: Readonly<Record<string, unknown>>;
}

export interface AgentMessaging {
  readonly did: string;
  /** The agent's ingress; register it with a mesh so local and HTTP deliveries reach it. */
  readonly ingest: IngestFunction;
  /** `message` is undefined when outbox middleware refused the message (nothing was signed or stored). */
  send(request: SendRequest, principal: Principal): Promise<{ message?: AgentMessage; delivery: DeliveryResult }>;
  /** The `msg_send` tool, for the agent's tool registry. */
  readonly msgSendTool: ToolDefinition;
}

function storeInbox(adf: AdfFile, record: InboxRecord): void {
  const m = record.message;
  adf.inbox.insert({
    messageId: m.id,
    from: m.from,
    to: m.to,
    threadId: m.payload.thread ?? null,
    parentId: m.payload.parent ?? null,
    subject: m.payload.subject ?? null,
    content: typeof m.payload.content === 'string' ? m.payload.content : JSON.stringify(m.payload.content),
    contentType: m.payload.content_type,
    meta: { ...m.meta, ...record.stamps, stripped: record.stripped, transport: record.source },
    source: record.source,
    sentAt: m.timestamp,
    originalMessage: record.original,
  });
}

/**
 * Messaging for one agent: its ingress (stores verified mail in `adf_inbox`) and its sending side
 * (signs with the agent key, records in `adf_outbox`, delivers through the mesh or egress).
 */
export function createAgentMessaging(input: AgentMessagingOptions): AgentMessaging {
  const options = checkOptions('createAgentMessaging', agentMessagingOptionsSchema, input);
  const { adf, identity } = options;
  const now = options.now ?? Date.now;
  const known = adf.db.prepare('SELECT 1 FROM adf_inbox WHERE message_id = ? LIMIT 1');
  const ingest = createIngress({
    self: { did: identity.did, seed: () => identitySeed(identity) },
    settings: () => ingressSettingsFromConfig(adf.config()),
    replay: createReplayGuard({ now, knownElsewhere: (id) => known.get(id) !== undefined }),
    now,
    store: (record) => storeInbox(adf, record),
    ...(options.middleware ? { middleware: options.middleware } : {}),
    audit: options.audit ?? adf.audit,
  });

  const audit = options.audit ?? adf.audit;
  const auditSend = (principal: Principal, to: string, delivery: DeliveryResult, id?: string) =>
    audit.record({
      principal,
      action: 'message.send',
      target: to,
      decision: delivery.status === 'delivered' ? 'allow' : 'deny',
      rule: 'messaging',
      ...(delivery.code === undefined ? {} : { code: delivery.code }),
      details: { ...(id === undefined ? {} : { id }), from: identity.did, via: delivery.via, status: delivery.status },
    });

  /** Outbox middleware, failing closed: a throw or a changed recipient or thread refuses the message. */
  async function runOutbox(draft: OutboundDraft): Promise<OutboundDraft | { code: TrustErrorCode; reason: string }> {
    let current = draft;
    for (const mw of options.outboxMiddleware ?? []) {
      let verdict: Awaited<ReturnType<OutboxMiddleware>>;
      try {
        verdict = await mw(current);
      } catch {
        return { code: 'MESSAGE_MIDDLEWARE_FAILED', reason: 'outbox middleware failed, so the message was not sent' };
      }
      if (verdict.action === 'reject') return { code: verdict.code, reason: verdict.reason };
      const next = verdict.draft;
      if (next === undefined) continue;
      if (next.to !== draft.to || next.thread !== draft.thread || next.parent !== draft.parent)
        return {
          code: 'MESSAGE_MIDDLEWARE_FAILED',
          reason: 'outbox middleware may change the content, not the recipient or thread',
        };
      current = next;
    }
    return current;
  }

  async function send(request: SendRequest, principal: Principal) {
    const drafted = await runOutbox({
      to: request.to,
      content: request.content,
      content_type: request.contentType ?? 'text/plain',
      ...(request.subject !== undefined ? { subject: request.subject } : {}),
      ...(request.thread !== undefined ? { thread: request.thread } : {}),
      ...(request.parent !== undefined ? { parent: request.parent } : {}),
    });
    if ('code' in drafted) {
      const delivery: DeliveryResult = {
        status: 'failed',
        attempts: 0,
        via: request.address === undefined ? 'local' : request.address.startsWith('ws') ? 'ws' : 'http',
        code: drafted.code,
        reason: drafted.reason,
      };
      auditSend(principal, request.to, delivery);
      return { delivery };
    }
    const { to: _to, ...payload } = drafted;
    const message = composeMessage(identity, {
      to: request.to,
      payload,
      now,
      ...(request.meta ? { meta: request.meta } : {}),
      ...(request.encrypt ? { encryptTo: publicKeyFromDidKey(request.to) } : {}),
    });
    const row = adf.outbox.insert({
      messageId: message.id,
      from: message.from,
      to: message.to,
      threadId: payload.thread ?? null,
      parentId: payload.parent ?? null,
      subject: payload.subject ?? null,
      content: payload.content,
      contentType: payload.content_type,
      originalMessage: JSON.stringify(message),
      ...(request.address !== undefined ? { address: request.address } : {}),
    });
    const delivery = await deliverMessage(message, request.address, {
      principal,
      signer: identity,
      ...(options.mesh ? { mesh: options.mesh } : {}),
      ...(options.egress ? { egress: options.egress } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
    adf.outbox.setStatus(row.id, delivery.status);
    auditSend(principal, message.to, delivery, message.id);
    return { message, delivery };
  }

  const msgSendTool: ToolDefinition = {
    name: 'msg_send',
    description: 'Send a signed message to another agent by DID, optionally encrypted to it.',
    inputSchema: {
      type: 'object',
      properties: {
        to: { type: 'string', description: 'recipient DID (did:key:z…)' },
        content: { type: 'string', description: 'message text' },
        subject: { type: 'string' },
        thread: { type: 'string' },
        parent: { type: 'string' },
        address: {
          type: 'string',
          description:
            'base URL of the recipient runtime, for agents elsewhere: http(s):// for the mesh inbox, ' +
            'ws(s):// for the mesh WebSocket',
        },
        encrypt: { type: 'boolean' },
      },
      required: ['to', 'content'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const a = args as unknown as SendRequest;
      if (Buffer.byteLength(a.content, 'utf8') > MAX_MESSAGE_BYTES / 2) {
        return {
          status: 'failed',
          code: 'MESSAGE_TOO_LARGE',
          reason: `content is limited to ${MAX_MESSAGE_BYTES / 2} bytes`,
        };
      }
      const { message, delivery } = await send(a, ctx.principal);
      return { ...(message ? { id: message.id } : {}), ...delivery };
    },
  };

  return { did: identity.did, ingest, send, msgSendTool };
}
