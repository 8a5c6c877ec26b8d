import { z } from 'zod';
import { agentConfigSchema } from '@trust/agent-runtime';
import type { ControlAgent, ControlAgents } from './agent-registry.js';
import { FILE_EDIT_MAX_BYTES } from './agent-details.js';
import { parseLogQuery } from './agent-detail-logs.js';
import { AGENT_PROVIDERS, agentTemplates, templateConfig } from './agent-templates.js';
import { controlError } from './control-error.js';
import type { Route, RouteContext } from './control-routes.js';
import { parseBody } from './route-schemas.js';
import { evaluateRelativePath } from './safe-path.js';

const ID = '(?<id>[A-Za-z0-9][A-Za-z0-9._-]{0,63})';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Body of `PUT …/file-text/*path`: the new text and the SHA-256 of what the editor read. */
export const FileWriteBody = z
  .strictObject({
    content: z.string().max(FILE_EDIT_MAX_BYTES).describe('the whole new file text (UTF-8)'),
    base: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .describe('SHA-256 hex of the content that was read; null creates a new file'),
  })
  .describe('an owner save from the studio editor');

/** Body of `POST /agent-templates/:template`. The API key itself is never accepted, only its env var name. */
export const TemplateCreateBody = z
  .strictObject({
    name: z.string().regex(NAME).describe('agent name, e.g. "researcher"'),
    description: z.string().max(500).optional().describe('one line shown in the list'),
    provider: z.enum(AGENT_PROVIDERS).describe('model provider kind'),
    model_id: z.string().min(1).max(200).optional().describe('e.g. "claude-sonnet-4"'),
    base_url: z.url().max(2048).optional().describe('openai-compatible: the provider base URL'),
    api_key_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]{0,127}$/)
      .optional()
      .describe('name of the host env var holding the key'),
  })
  .describe('create an agent from a template');

/**
 * The agent detail routes of the studio: the file editor, the read-only runtime panels (triggers,
 * timers, MCP servers, identity, mesh), the config schema, and creating from a template. Served
 * behind the same guard as every other route (Host, Origin, token, CSP), by the same server.
 */
export function createAgentDetailRoutes(agents: ControlAgents): readonly Route[] {
  const r = (method: Route['method'], path: string, handler: Route['handler']): Route => ({
    method,
    pattern: new RegExp(`^${path}$`),
    handler,
  });
  const agent = async (ctx: RouteContext) => agents.open(ctx.params['id']!);
  const need = <K extends 'fileText' | 'writeFile' | 'runtimeView' | 'logs'>(a: ControlAgent, key: K) => {
    const fn = a[key];
    if (typeof fn !== 'function')
      throw controlError('NOT_IMPLEMENTED', `this agent runtime does not support "${key}" yet`);
    return (fn as (...args: unknown[]) => unknown).bind(a) as NonNullable<ControlAgent[K]>;
  };
  const path = (ctx: RouteContext) => {
    const d = evaluateRelativePath(ctx.params['path']!);
    if (!d.allow) throw controlError('CONTROL_PATH_INVALID', d.reason, d.hint);
    return d.path!;
  };

  return [
    r('GET', `/agents/${ID}/file-text/(?<path>.+)`, async (ctx) => ({
      file: await need(await agent(ctx), 'fileText')(path(ctx)),
      maxBytes: FILE_EDIT_MAX_BYTES,
    })),
    r('PUT', `/agents/${ID}/file-text/(?<path>.+)`, async (ctx) => {
      const p = path(ctx);
      const body = parseBody(FileWriteBody, ctx.body);
      return { file: await need(await agent(ctx), 'writeFile')(p, body.content, body.base, ctx.by) };
    }),
    r('GET', `/agents/${ID}/runtime`, async (ctx) => ({ runtime: await need(await agent(ctx), 'runtimeView')() })),
    // Read-only; the query is parsed (and refused when bad) before the agent is opened.
    r('GET', `/agents/${ID}/logs`, async (ctx) => {
      const q = parseLogQuery(ctx.query ?? new URLSearchParams());
      return need(await agent(ctx), 'logs')(q);
    }),
    r('GET', '/config-schema', async () => ({
      schema: z.toJSONSchema(agentConfigSchema, { io: 'input', unrepresentable: 'any' }),
    })),
    r('GET', '/mesh', async () => meshView(agents)),
    r('GET', '/agent-templates', async () => ({
      templates: agentTemplates().map(({ id, title, description }) => ({ id, title, description })),
      providers: AGENT_PROVIDERS,
    })),
    r('POST', '/agent-templates/(?<template>[a-z0-9-]{1,40})', async (ctx) => {
      if (agents.create === undefined)
        throw controlError('NOT_IMPLEMENTED', 'creating agents is not supported by this registry');
      const b = parseBody(TemplateCreateBody, ctx.body);
      const config = templateConfig(ctx.params['template']!, b.name, {
        provider: b.provider,
        ...(b.model_id === undefined ? {} : { model_id: b.model_id }),
        ...(b.base_url === undefined ? {} : { base_url: b.base_url }),
        ...(b.api_key_env === undefined ? {} : { api_key_env: b.api_key_env }),
      });
      const input = { name: b.name, config, ...(b.description === undefined ? {} : { description: b.description }) };
      return { agent: await agents.create(input, ctx.by) };
    }),
  ];
}

/**
 * Who talks to whom: one edge per (from, to), DIDs named by agent. Local agents' outboxes give
 * what they sent; inboxes add only mail from senders outside this workspace (counted once).
 */
async function meshView(agents: ControlAgents) {
  const nodes: { id: string; did: string | null }[] = [];
  const sent: { from: string; to: string; time: string }[] = [];
  const received: { from: string; to: string; time: string }[] = [];
  for (const s of await agents.list()) {
    const a = await agents.open(s.id);
    const did = typeof a.did === 'function' ? await a.did() : null;
    nodes.push({ id: s.id, did });
    if (typeof a.outbox === 'function') sent.push(...(await a.outbox()));
    if (typeof a.inbox === 'function') received.push(...(await a.inbox()));
  }
  const local = (x: string) => nodes.find((n) => n.did === x || n.id === x)?.id;
  const name = (x: string) => local(x) ?? x;
  const edges = new Map<string, { from: string; to: string; count: number; last: string }>();
  for (const m of [...sent, ...received.filter((x) => local(x.from) === undefined)]) {
    const k = `${name(m.from)}\u0000${name(m.to)}`;
    const e = edges.get(k) ?? { from: name(m.from), to: name(m.to), count: 0, last: '' };
    edges.set(k, { ...e, count: e.count + 1, last: [m.time, e.last].sort().at(-1) ?? '' });
  }
  return { agents: nodes, edges: [...edges.values()].sort((x, y) => (x.from + x.to).localeCompare(y.from + y.to)) };
}
