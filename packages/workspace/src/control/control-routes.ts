import { createPrincipal, type Principal } from '@trust/core';
import type { ControlAgent, ControlAgents, PluginReport, SandboxRunView, ApprovalTask } from './agent-registry.js';
import { buildAuditTimeline, type AuditLogView } from './audit-timeline.js';
import { controlError } from './control-error.js';
import { evaluateRelativePath } from './safe-path.js';
import { evaluateTriggerSource } from '@trust/agent-runtime/host';
import {
  ApproveBody,
  AuthorizedBody,
  ChatBody,
  ConfigBody,
  CreateAgentBody,
  DenyBody,
  PolicyCheckBody,
  PolicyValidateBody,
  ToolBody,
  TriggerBody,
  parseBody,
} from './route-schemas.js';
import { checkPolicyUrl, validatePolicy } from './policy-check.js';
import { sandboxRoutes, type SandboxControl } from './sandbox-routes.js';
import { createAgentDetailRoutes } from './agent-detail-routes.js';
import { pluginRoutes, type PluginActionHooks } from './plugin-routes.js';
import { policyFileRoutes, type PolicyFileStore } from './policy-file-routes.js';

/** What a handler gets: path params, the parsed JSON body (for writes) and the acting owner. */
export interface RouteContext {
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly by: Principal;
  /** The query string of the request (read-only filters; credentials there are refused by the guard). */
  readonly query?: URLSearchParams;
}

/** One API route: method, a pattern over the path after `/api/v1`, and a handler returning JSON. */
export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  readonly pattern: RegExp;
  readonly handler: (ctx: RouteContext) => Promise<unknown>;
  /** Largest body this route reads, in bytes. Omitted: the server's `maxBodyBytes`. */
  readonly maxBodyBytes?: number;
}

/** Host-provided data sources for the plugin inspector and the sandbox-run views. */
export interface ControlHostData extends PluginActionHooks {
  readonly plugins?: () => PluginReport[] | Promise<PluginReport[]>;
  readonly sandboxRuns?: () => SandboxRunView[] | Promise<SandboxRunView[]>;
  readonly auditLogs?: () => AuditLogView[] | Promise<AuditLogView[]>;
  /**
   * Values for `{ "env": NAME }` headers when a policy is checked. Omitted: none (such a policy
   * reports the missing variable).
   */
  readonly policyEnv?: () => Readonly<Record<string, string | undefined>>;
  /** The host's egress policy file, read and saved by the policy editor. Omitted: those routes answer 501. */
  readonly policyFile?: PolicyFileStore;
  readonly cspReports: () => readonly unknown[];
  /** Starts and follows sandbox runs for the studio (see sandbox-routes.ts). Omitted: those routes answer 501. */
  readonly sandboxControl?: SandboxControl;
}

const ID = '(?<id>[A-Za-z0-9][A-Za-z0-9._-]{0,63})';
const TASK = '(?<task>[A-Za-z0-9._:-]{1,128})';

/** The control API's route table. Pure data plus closures over the registry; no I/O of its own. */
export function createRoutes(agents: ControlAgents, host: ControlHostData): readonly Route[] {
  const open = async (id: string): Promise<ControlAgent> => agents.open(id);
  const need = <K extends keyof ControlAgent>(agent: ControlAgent, key: K): NonNullable<ControlAgent[K]> => {
    const fn = agent[key];
    if (typeof fn !== 'function') {
      throw controlError(
        'NOT_IMPLEMENTED',
        `this agent runtime does not support "${String(key)}" yet`,
        'see "not implemented yet" in the agent-runtime README',
      );
    }
    return (fn as (...a: unknown[]) => unknown).bind(agent) as NonNullable<ControlAgent[K]>;
  };
  const r = (method: Route['method'], path: string, handler: Route['handler']): Route => ({
    method,
    pattern: new RegExp(`^${path}$`),
    handler,
  });
  const p = (ctx: RouteContext, k: string) => ctx.params[k]!;

  return [
    r('GET', '/agents', async () => ({ agents: await agents.list() })),
    r('POST', '/agents', async (ctx) => {
      if (agents.create === undefined)
        throw controlError('NOT_IMPLEMENTED', 'creating agents is not supported by this registry');
      return { agent: await agents.create(parseBody(CreateAgentBody, ctx.body), ctx.by) };
    }),
    r('GET', `/agents/${ID}`, async (ctx) => ({ agent: await (await open(p(ctx, 'id'))).summary() })),
    r('POST', `/agents/${ID}/start`, async (ctx) => {
      const a = await open(p(ctx, 'id'));
      await need(a, 'start')(ctx.by);
      return { agent: await a.summary() };
    }),
    r('POST', `/agents/${ID}/stop`, async (ctx) => {
      const a = await open(p(ctx, 'id'));
      await need(a, 'stop')(ctx.by);
      return { agent: await a.summary() };
    }),
    r('GET', `/agents/${ID}/chat`, async (ctx) => ({ turns: await need(await open(p(ctx, 'id')), 'history')() })),
    r('POST', `/agents/${ID}/chat`, async (ctx) => {
      const { text } = parseBody(ChatBody, ctx.body);
      return { turns: await need(await open(p(ctx, 'id')), 'send')(text, ctx.by) };
    }),
    r('GET', '/tasks', async () => {
      const all: ApprovalTask[] = [];
      for (const s of await agents.list()) {
        const a = await open(s.id);
        if (typeof a.tasks === 'function') all.push(...(await a.tasks()));
      }
      return { tasks: all };
    }),
    r('GET', `/agents/${ID}/tasks`, async (ctx) => ({ tasks: await need(await open(p(ctx, 'id')), 'tasks')() })),
    r('POST', `/agents/${ID}/tasks/${TASK}/approve`, async (ctx) => {
      const body = parseBody(ApproveBody, ctx.body);
      return {
        task: await need(await open(p(ctx, 'id')), 'approve')(
          p(ctx, 'task'),
          body.args === undefined ? {} : { args: body.args },
          ctx.by,
        ),
      };
    }),
    r('POST', `/agents/${ID}/tasks/${TASK}/deny`, async (ctx) => {
      const body = parseBody(DenyBody, ctx.body);
      return {
        task: await need(await open(p(ctx, 'id')), 'deny')(
          p(ctx, 'task'),
          body.feedback === undefined ? {} : { feedback: body.feedback },
          ctx.by,
        ),
      };
    }),
    r('GET', `/agents/${ID}/config`, async (ctx) => need(await open(p(ctx, 'id')), 'config')()),
    r('PATCH', `/agents/${ID}/config`, async (ctx) =>
      need(await open(p(ctx, 'id')), 'updateConfig')(parseBody(ConfigBody, ctx.body), ctx.by),
    ),
    r('GET', `/agents/${ID}/tools`, async (ctx) => ({ tools: await need(await open(p(ctx, 'id')), 'tools')() })),
    r('PATCH', `/agents/${ID}/tools/(?<tool>[A-Za-z0-9_.:-]{1,128})`, async (ctx) => ({
      tools: await need(await open(p(ctx, 'id')), 'updateTool')(p(ctx, 'tool'), parseBody(ToolBody, ctx.body), ctx.by),
    })),
    r('GET', `/agents/${ID}/files`, async (ctx) => ({ files: await need(await open(p(ctx, 'id')), 'files')() })),
    r('GET', `/agents/${ID}/files/(?<path>.+)`, async (ctx) => ({
      file: await need(await open(p(ctx, 'id')), 'readFile')(safePath(p(ctx, 'path'))),
    })),
    r('PUT', `/agents/${ID}/authorized/(?<path>.+)`, async (ctx) => {
      const { authorized } = parseBody(AuthorizedBody, ctx.body);
      return {
        file: await need(await open(p(ctx, 'id')), 'setAuthorized')(safePath(p(ctx, 'path')), authorized, ctx.by),
      };
    }),
    r('GET', `/agents/${ID}/inbox`, async (ctx) => ({ messages: await need(await open(p(ctx, 'id')), 'inbox')() })),
    r('GET', `/agents/${ID}/outbox`, async (ctx) => ({ messages: await need(await open(p(ctx, 'id')), 'outbox')() })),
    r('GET', `/agents/${ID}/audit`, async (ctx) => {
      const a = await open(p(ctx, 'id'));
      const events = await need(a, 'audit')();
      const chain =
        typeof a.verifyAudit === 'function'
          ? await a.verifyAudit()
          : { ok: false, count: events.length, reason: 'this runtime cannot verify its chain yet' };
      return { events, chain };
    }),
    r('POST', `/agents/${ID}/trigger`, async (ctx) => {
      const body = parseBody(TriggerBody, ctx.body);
      // The owner's voices (user, owner, system) are refused in every spelling: the source is
      // plain ASCII or nothing, so no look-alike or invisible character gets past the list.
      const verdict = evaluateTriggerSource(body.source);
      if (!verdict.allow) {
        throw verdict.code === 'TRIGGER_SOURCE_FORBIDDEN'
          ? controlError(
              'CONTROL_TRIGGER_SOURCE_FORBIDDEN',
              verdict.reason,
              'use a source such as "timer" or "webhook"; owner messages go through POST …/chat',
            )
          : controlError('CONTROL_TRIGGER_SOURCE_INVALID', verdict.reason, verdict.hint);
      }
      return {
        result:
          (await need(
            await open(p(ctx, 'id')),
            'trigger',
          )(body.payload === undefined ? { source: body.source } : { source: body.source, payload: body.payload })) ??
          null,
      };
    }),
    r('GET', '/plugins', async () => ({
      provided: host.plugins !== undefined,
      plugins: host.plugins ? await host.plugins() : [],
    })),
    r('GET', '/sandbox-runs', async () => ({
      provided: host.sandboxRuns !== undefined,
      runs: host.sandboxRuns ? await host.sandboxRuns() : [],
    })),
    // One timeline across every agent's chain and the host's logs, each with its chain status.
    r('GET', '/audit', async () => buildAuditTimeline(agents, host.auditLogs ? await host.auditLogs() : [])),
    // The egress policy editor: the core validator, and a live check of a URL, step by step.
    r('POST', '/policy/validate', async (ctx) => validatePolicy(parseBody(PolicyValidateBody, ctx.body).text)),
    r('POST', '/policy/check', async (ctx) => {
      const b = parseBody(PolicyCheckBody, ctx.body);
      return checkPolicyUrl(
        {
          url: b.url,
          ...(b.text === undefined ? {} : { text: b.text }),
          ...(b.mode === undefined ? {} : { mode: b.mode }),
          ...(b.resolve === undefined ? {} : { resolve: b.resolve }),
        },
        host.policyEnv?.() ?? {},
      );
    }),
    ...policyFileRoutes(host.policyFile),
    r('GET', '/csp-reports', async () => ({ reports: host.cspReports() })),
    ...sandboxRoutes(host.sandboxControl),
    ...createAgentDetailRoutes(agents),
    ...pluginRoutes(host),
  ];
}

function safePath(encoded: string): string {
  const d = evaluateRelativePath(encoded);
  if (!d.allow) throw controlError('CONTROL_PATH_INVALID', d.reason, d.hint);
  return d.path!;
}

/** The owner principal every control API request acts as (only the token holder gets here). */
export function controlOwner(): Principal {
  return createPrincipal('owner', 'control-api');
}
