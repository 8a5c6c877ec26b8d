import { TrustError, isTrustErrorCode } from '@trust/core';
import { openAdf, SCRIPTED_LABEL } from '@trust/agent-runtime';
import { createAgentOpener } from '../control/index.js';
import type { AgentEgress, AgentMcpOptions, ModelProvider } from '@trust/agent-runtime';
import type { AgentOpenerOptions, ControlEvent, OpenedAgent } from '../control/index.js';
import type { AuditEvent, AuditInput, AuditSink } from '@trust/core';
import { modelAgentOpenerOptionsSchema } from './agent-model-options.js';
import { checkWorkspaceOptions } from '../options.js';
import { createModelClient, type ModelClientOptions } from './model-client.js';
import { planModel, type AgentModelSettings, type ModelFlags, type ModelPlanProblem } from './model-plan.js';

/** The provider an agent runs with, and how to release it. */
export interface AgentModel {
  readonly provider: ModelProvider;
  /** One line for people (provider, model, host, key variable; never the key). */
  readonly describe: string;
  close(): Promise<void>;
}

/** The outcome of {@link resolveAgentModel}. */
export type AgentModelResult =
  | { readonly ok: true; readonly model: AgentModel }
  | { readonly ok: false; readonly problem: ModelPlanProblem };

/** Reads an agent file's `model` settings without opening it for writing. */
export function readAgentModelSettings(file: string): AgentModelSettings {
  const adf = openAdf(file, { readonly: true, trust: 'owned' });
  try {
    const m = adf.config().model;
    return { provider: m.provider, model_id: m.model_id, base_url: m.base_url, api_key_env: m.api_key_env };
  } finally {
    adf.close();
  }
}

/**
 * Plans and builds the provider for one agent: `scripted()` for the scripted kind, otherwise a
 * real provider over its own egress client (see `createModelClient`). A plan problem (no key,
 * no model id, a local or clear-text URL) comes back as a value, so a caller can keep the agent
 * usable for everything but chat.
 *
 * @example
 * const r = resolveAgentModel(readAgentModelSettings(file), {}, process.env, () => createScriptedProvider([]));
 */
export function resolveAgentModel(
  settings: AgentModelSettings,
  flags: ModelFlags,
  env: Readonly<Record<string, string | undefined>>,
  scripted: () => ModelProvider,
  options: ModelClientOptions = {},
): AgentModelResult {
  const planned = planModel(flags, settings, env);
  if (!planned.ok) return planned;
  const { plan } = planned;
  if (plan.kind === 'scripted') {
    const provider = scripted();
    return { ok: true, model: { provider, describe: SCRIPTED_LABEL, close: async () => undefined } };
  }
  const client = createModelClient(plan, env, options);
  return { ok: true, model: client };
}

/**
 * The model of `trust agent chat`: the agent file's settings overridden by the flags. A problem
 * is a usage error (exit 2) naming its fix.
 *
 * @example
 * const model = await openModel(file, { provider: 'anthropic', model: 'claude-sonnet-4-5' }, io.env, scripted);
 */
export async function openModel(
  file: string,
  flags: ModelFlags,
  env: Readonly<Record<string, string | undefined>>,
  scripted: () => ModelProvider,
  options: ModelClientOptions = {},
): Promise<AgentModel> {
  const r = resolveAgentModel(readAgentModelSettings(file), flags, env, scripted, options);
  if (!r.ok)
    if (!r.ok)
      // exitCode 2: a model that cannot be set up is a usage problem of the command that asked for it.
      throw Object.assign(new TrustError(r.problem.code, r.problem.message, { hint: r.problem.hint }), { exitCode: 2 });
  return r.model;
}

/** Options of {@link createModelAgentOpener}. */
export interface ModelAgentOpenerOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Flags that apply to every agent (only `allowLocal` makes sense for a whole workspace). */
  readonly flags?: ModelFlags;
  /** The provider of agents whose model.provider is `scripted`. */
  readonly scripted: () => ModelProvider;
  /** Read when each agent is opened: ports the model clients must never reach (the control server's). */
  readonly protectedPorts?: () => readonly number[];
  /** How each agent's MCP servers are connected on start (see `createAgentOpener`); omitted: they are not. */
  readonly mcp?: (id: string) => AgentMcpOptions;
  /** The sys_fetch and ws_* clients of each agent (see `createAgentOpener`); omitted: those tools fail closed. */
  readonly egress?: (id: string) => AgentEgress;
  /** The keys agents' identities are sealed to (see `createAgentOpener`). */
  readonly identityKeys?: AgentOpenerOptions['identityKeys'];
  /** The workspace's mesh (see `createAgentOpener`). */
  readonly mesh?: AgentOpenerOptions['mesh'];
}

/**
 * An agent opener for `createWorkspaceAgents` that gives each agent the provider its own config
 * names (model.provider, model_id, base_url, api_key_env), keys injected at egress. An agent
 * whose provider cannot be built (no key, no model id, a refused URL) still opens for reading,
 * approvals and owner changes; its chat, start and trigger answer the plan problem (code, reason,
 * fix) instead of calling a model. Every egress decision of an agent's model client goes into
 * that agent's own audit chain (the studio's Audit view). `close()` releases every model client.
 *
 * @example
 * const models = createModelAgentOpener({ env: process.env, scripted: () => createScriptedProvider(script) });
 * const agents = createWorkspaceAgents({ dir, open: models.open });
 */
export function createModelAgentOpener(options: ModelAgentOpenerOptions): {
  open(path: string, id: string, emit: (event: ControlEvent) => void): OpenedAgent;
  close(): Promise<void>;
} {
  checkWorkspaceOptions('createModelAgentOpener', modelAgentOpenerOptionsSchema, options);
  const models: AgentModel[] = [];
  const mcp = {
    ...(options.mcp ? { mcp: options.mcp } : {}),
    ...(options.egress ? { egress: options.egress } : {}),
    ...(options.identityKeys ? { identityKeys: options.identityKeys } : {}),
    ...(options.mesh ? { mesh: options.mesh } : {}),
  };
  return {
    open(path, id, emit) {
      const settings = readAgentModelSettings(path);
      const ports = options.protectedPorts?.() ?? [];
      // The model client exists before the agent's file is open; its decisions reach the file's
      // chain once it is (requests only start after that).
      let chain: AuditSink | undefined;
      const audit: AuditSink = {
        record(input: AuditInput): AuditEvent {
          if (chain === undefined) throw new TrustError('MODEL_AUDIT_NOT_READY', `agent "${id}" is not open yet`);
          return chain.record({ ...input, principal: { ...input.principal, agent: id } });
        },
      };
      let r: AgentModelResult;
      try {
        r = resolveAgentModel(settings, options.flags ?? {}, options.env, options.scripted, {
          audit,
          ...(ports.length ? { protectedPorts: ports } : {}),
        });
      } catch (e) {
        // Building the client failed after planning (e.g. the policy refused a header): keep the agent listed.
        const err = e as { code?: unknown; message?: unknown; hint?: unknown };
        r = {
          ok: false,
          problem: {
            code: isTrustErrorCode(err.code) ? err.code : 'MODEL_SETUP_FAILED',
            message: typeof err.message === 'string' ? err.message : String(e),
            hint:
              typeof err.hint === 'string' ? err.hint : 'check the model settings of this agent and the key variable',
          },
        };
      }
      if (r.ok) {
        models.push(r.model);
        const opened = createAgentOpener({ provider: () => r.model.provider, ...mcp })(path, id, emit);
        chain = opened.adf.audit;
        return opened;
      }
      const { problem } = r;
      const refusal = () =>
        new TrustError(problem.code, `agent "${id}" cannot talk to its model: ${problem.message}`, {
          hint: problem.hint,
        });
      const unavailable: ModelProvider = {
        kind: options.flags?.provider ?? settings.provider,
        label: `unavailable (${problem.code})`,
        model: settings.model_id,
        createMessage: () => Promise.reject(refusal()),
      };
      const opened = createAgentOpener({ provider: () => unavailable, ...mcp })(path, id, emit);
      const refuse = () => {
        throw refusal();
      };
      return { ...opened, hooks: { ...opened.hooks, send: refuse, start: refuse, trigger: refuse } };
    },
    async close() {
      await Promise.all(models.splice(0).map((m) => m.close()));
    },
  };
}
