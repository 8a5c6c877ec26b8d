import { TrustError } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import { effectiveToolDeclarations } from '../config/agent-config.js';
import { reviewKeyOf, signAdfContent } from './adf-review.js';
import type { AgentIdentity } from './did-key.js';

/**
 * Everything in a file that can act or send data out, as its owner reviews it before it may run.
 * Versioned (`v: 1`) so a stored review can be compared with a later one.
 */
export interface AdfReviewSurface {
  readonly v: 1;
  readonly contentHash: string;
  /** The owner whose signature over the content hash verified, or null. */
  readonly ownerDid: string | null;
  readonly agentDid: string | null;
  readonly name: string;
  readonly autonomous: boolean;
  /** Enabled tools with their flags. */
  readonly tools: ReadonlyArray<{ name: string; visible: boolean; restricted: boolean; locked: boolean }>;
  readonly triggers: ReadonlyArray<{ type: string; scope: string; lambda: string | null; filter: unknown }>;
  readonly timers: ReadonlyArray<{ id: number; schedule: unknown; scope: string[]; lambda: string | null }>;
  /** Every file that is code a lambda can name, with its `authorized` flag (authorized code may bypass locks). */
  readonly lambdas: ReadonlyArray<{ path: string; authorized: boolean }>;
  readonly middleware: { inbox: string[]; outbox: string[]; fetch: string[] };
  readonly mcpServers: ReadonlyArray<{ name: string; command: string | null; args: string[]; url: string | null }>;
  /** `baseUrl` null: the provider's public API. Any other value sends prompts (and the injected key) there. */
  readonly model: { provider: string; modelId: string | null; baseUrl: string | null; apiKeyEnv: string | null };
  readonly messaging: { receive: boolean; mode: string; visibility: string; allowList: string[]; blockList: string[] };
  readonly codeExecution: Readonly<Record<string, unknown>>;
}

/** One section of two reviews that differs. */
export interface AdfReviewChange {
  readonly section: string;
  readonly before: unknown;
  readonly after: unknown;
}

const CODE = /\.(ts|js|mjs)$/;

/**
 * Describes what a file can do, for its owner's review (read-only).
 *
 * @example
 * const surface = describeAdfReview(openAdf(copy, { trust: 'foreign', readonly: true }));
 * surface.lambdas.filter((l) => l.authorized); // code the file itself marked authorized
 */
export function describeAdfReview(adf: AdfFile): AdfReviewSurface {
  const c = adf.config();
  const key = reviewKeyOf(adf);
  const model = c.model as { provider: string; model_id?: string; base_url?: string; api_key_env?: string };
  return {
    v: 1,
    contentHash: key.contentHash,
    ownerDid: key.ownerDid,
    agentDid: adf.meta.get('adf_did') ?? null,
    name: c.name,
    autonomous: c.autonomous,
    tools: [...effectiveToolDeclarations(c).values()]
      .filter((d) => d.enabled)
      .map((d) => ({ name: d.name, visible: d.visible, restricted: d.restricted, locked: d.locked })),
    triggers: c.triggers.map((t) => ({
      type: t.type,
      scope: t.scope,
      lambda: t.lambda ?? null,
      filter: t.filter ?? null,
    })),
    timers: adf.timers.list().map((t) => ({ id: t.id, schedule: t.schedule, scope: [...t.scope], lambda: t.lambda })),
    lambdas: adf.files
      .list()
      .filter((f) => f.authorized || CODE.test(f.path))
      .map((f) => ({ path: f.path, authorized: f.authorized })),
    middleware: {
      inbox: c.security.middleware.inbox.map((m) => m.lambda),
      outbox: c.security.middleware.outbox.map((m) => m.lambda),
      fetch: c.security.fetch_middleware.map((m) => m.lambda),
    },
    mcpServers: c.mcp.servers.map((s) => ({
      name: s.name,
      command: s.command ?? null,
      args: [...s.args],
      url: s.url ?? null,
    })),
    model: {
      provider: model.provider,
      modelId: model.model_id ?? null,
      baseUrl: model.base_url ?? null,
      apiKeyEnv: model.api_key_env ?? null,
    },
    messaging: {
      receive: c.messaging.receive,
      mode: c.messaging.mode,
      visibility: c.messaging.visibility,
      allowList: [...c.messaging.allow_list],
      blockList: [...c.messaging.block_list],
    },
    codeExecution: { ...c.code_execution },
  };
}

/**
 * What changed between the last accepted review and this one, section by section (hash and
 * owner aside). `previous` undefined: everything is new, reported as one `first-review` entry.
 */
export function diffAdfReviews(previous: AdfReviewSurface | undefined, next: AdfReviewSurface): AdfReviewChange[] {
  if (!previous) return [{ section: 'first-review', before: null, after: null }];
  const out: AdfReviewChange[] = [];
  for (const k of Object.keys(next) as Array<keyof AdfReviewSurface>) {
    if (k === 'contentHash' || k === 'ownerDid') continue;
    if (JSON.stringify(previous[k]) !== JSON.stringify(next[k]))
      out.push({ section: k, before: previous[k] ?? null, after: next[k] });
  }
  return out;
}

/** What the owner decided when accepting. */
export interface AcceptAdfReviewOptions {
  readonly owner: AgentIdentity;
  /** The content hash the owner saw; a file that changed since is refused (`ADF_REVIEW_CHANGED`). */
  readonly expectHash?: string;
  /** Files the owner ticks as authorized code; every other file the file itself marked authorized is cleared. */
  readonly authorize?: readonly string[];
  /** Must be true when the model has a `base_url` (prompts and the key go there); else `ADF_REVIEW_UNCONFIRMED`. */
  readonly confirmBaseUrl?: boolean;
}

/**
 * Accepts a review on a writable handle: clears the `authorized` flag of every file not ticked,
 * checks the base-URL confirmation, then signs the content as the owner's, so the file is no
 * longer foreign to this owner (any later outside change breaks the signature again).
 *
 * @example
 * acceptAdfReview(adf, { owner, expectHash: surface.contentHash, authorize: ['mw/inbox.ts'] });
 */
export function acceptAdfReview(
  adf: AdfFile,
  options: AcceptAdfReviewOptions,
): { contentHash: string; ownerDid: string; deauthorized: string[]; authorized: string[] } {
  const surface = describeAdfReview(adf);
  if (options.expectHash !== undefined && options.expectHash !== surface.contentHash)
    throw new TrustError(
      'ADF_REVIEW_CHANGED',
      `the file changed since it was reviewed (content ${surface.contentHash.slice(0, 16)}…, ` +
        `reviewed ${options.expectHash.slice(0, 16)}…)`,
      { hint: 'review it again, then accept what you saw' },
    );
  if (surface.model.baseUrl !== null && options.confirmBaseUrl !== true)
    throw new TrustError(
      'ADF_REVIEW_UNCONFIRMED',
      `the model's base_url is ${surface.model.baseUrl}: prompts, and the API key injected for them, would go there`,
      { hint: 'confirm that server separately (trust agent review --accept --confirm-base-url)' },
    );
  const tick = new Set(options.authorize ?? []);
  const known = new Set(adf.files.list().map((f) => f.path));
  for (const p of tick)
    if (!known.has(p))
      throw new TrustError('ADF_FILE_NOT_FOUND', `there is no file ${p} to authorize`, {
        hint: `pick one of: ${surface.lambdas.map((l) => l.path).join(', ') || 'no code files'}`,
      });
  const deauthorized: string[] = [];
  adf.transaction(() => {
    for (const l of surface.lambdas)
      if (l.authorized && !tick.has(l.path)) {
        adf.files.setAuthorized(l.path, false, 'owner');
        deauthorized.push(l.path);
      }
    for (const p of tick) adf.files.setAuthorized(p, true, 'owner');
  });
  const contentHash = signAdfContent(adf, options.owner);
  return { contentHash, ownerDid: options.owner.did, deauthorized, authorized: [...tick] };
}
