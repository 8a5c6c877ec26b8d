import type { AuditSink, TrustErrorCode } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { CodeRunner } from '../code/code-runner.js';
import { runMiddlewareChain, type MiddlewareStep } from '../code/middleware.js';
import type { OutboundDraft, OutboxMiddleware } from './agent-messaging.js';
import type { InboxMiddleware } from './ingress.js';
import { MAX_MESSAGE_BYTES, type AgentMessage } from './message.js';

/** The config's message middleware chains, run as lambdas in the agent's code sandbox. */
export interface ConfigMiddleware {
  readonly inbox: InboxMiddleware;
  readonly outbox: OutboxMiddleware;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalString = (v: unknown, max: number) => v === undefined || (typeof v === 'string' && v.length <= max);

/** A rewritten draft is accepted only with the same shape, recipient and thread, and bounded text. */
function acceptDraft(original: OutboundDraft) {
  return (c: unknown): OutboundDraft | undefined => {
    if (!isObject(c) || c['to'] !== original.to || c['thread'] !== original.thread || c['parent'] !== original.parent)
      return undefined;
    const content = c['content'];
    const type = c['content_type'];
    if (typeof content !== 'string' || Buffer.byteLength(content, 'utf8') > MAX_MESSAGE_BYTES / 2) return undefined;
    if (typeof type !== 'string' || type.length === 0 || type.length > 200) return undefined;
    if (!optionalString(c['subject'], 1000)) return undefined;
    const extra = Object.keys(c).filter(
      (k) => !['to', 'content', 'content_type', 'subject', 'thread', 'parent'].includes(k),
    );
    if (extra.length > 0) return undefined;
    return {
      ...original,
      content,
      content_type: type,
      ...(c['subject'] === undefined ? {} : { subject: c['subject'] as string }),
    };
  };
}

/**
 * Builds the agent's inbox and outbox middleware from `security.middleware.inbox/outbox`, read on
 * every message (an owner's config change applies to the next one). Each lambda runs in the code
 * sandbox with its own file's authorization, receiving `{ kind, value, context }`:
 * - inbox: `value` is the verified message (signature removed), `context.stamps` the runtime's trust
 *   stamps; returning `{ value }` with another payload rewrites what is stored (ingress refuses a
 *   changed sender, recipient or id);
 * - outbox: `value` is the draft `{ to, content, content_type, subject?, thread?, parent? }`
 *   before signing; a rewrite may change content, content type and subject only.
 *
 * `{ reject: "why" }` stops the message (`MIDDLEWARE_REJECTED`); a throw, timeout or bad result
 * stops it too (fail closed). Under `require_middleware_authorization` (the default) a lambda in a
 * file the owner has not authorized is skipped. Every lambda's decision is audited
 * (`middleware.inbox` / `middleware.outbox`, skips as `deny` with `MIDDLEWARE_UNAUTHORIZED`).
 *
 * @example
 * const mw = createConfigMiddleware({ adf, runner });
 * createAgentMessaging({ adf, identity, mesh, middleware: [mw.inbox], outboxMiddleware: [mw.outbox] });
 */
export function createConfigMiddleware(input: {
  readonly adf: AdfFile;
  readonly runner: CodeRunner;
  readonly audit?: AuditSink;
}): ConfigMiddleware {
  const { adf, runner } = input;
  const audit = input.audit ?? adf.audit;
  const onStep = (kind: 'inbox' | 'outbox', target: string) => (s: MiddlewareStep) => {
    const file = s.lambda.split(':')[0] ?? s.lambda;
    audit.record({
      principal: { kind: adf.files.isAuthorized(file) ? 'authorized-code' : 'code', id: file },
      action: `middleware.${kind}`,
      target,
      decision: s.outcome === 'pass' || s.outcome === 'rewrite' ? 'allow' : 'deny',
      rule: s.outcome === 'skip' ? 'require_middleware_authorization' : 'middleware',
      ...(s.code === undefined ? {} : { code: s.code }),
      details: { lambda: s.lambda, outcome: s.outcome, ...(s.reason === undefined ? {} : { reason: s.reason }) },
    });
  };
  const refused = (code: TrustErrorCode, reason: string) => ({ action: 'reject' as const, code, reason });

  const inbox: InboxMiddleware = async (message, stamps) => {
    const refs = adf.config().security.middleware.inbox;
    if (refs.length === 0) return { action: 'accept' };
    const out = await runMiddlewareChain<AgentMessage>({
      adf,
      runner,
      kind: 'inbox',
      refs,
      value: message,
      context: { stamps },
      // Ingress validates the message again and refuses a changed sender, recipient or id.
      accept: (c) => (isObject(c) ? (c as AgentMessage) : undefined),
      unauthorized: 'skip',
      onStep: onStep('inbox', message.id),
    });
    if (!out.ok) return refused(out.code, out.reason);
    return out.value === message ? { action: 'accept' } : { action: 'accept', message: out.value };
  };

  const outbox: OutboxMiddleware = async (draft) => {
    const refs = adf.config().security.middleware.outbox;
    if (refs.length === 0) return { action: 'accept' };
    const out = await runMiddlewareChain<OutboundDraft>({
      adf,
      runner,
      kind: 'outbox',
      refs,
      value: draft,
      accept: acceptDraft(draft),
      unauthorized: 'skip',
      onStep: onStep('outbox', draft.to),
    });
    if (!out.ok) return refused(out.code, out.reason);
    return { action: 'accept', draft: out.value };
  };

  return { inbox, outbox };
}
