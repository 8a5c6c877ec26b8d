import { defaultAgentConfig } from '@trust/agent-runtime';
import { controlError } from './control-error.js';

/** The model providers a new agent can be created with (the config schema's `model.provider`). */
export const AGENT_PROVIDERS = ['scripted', 'openai-compatible', 'anthropic'] as const;

/** One starting point for a new agent: changes over the safe defaults, nothing more. */
export interface AgentTemplate {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  /** Tool flags changed from the defaults, by tool name. */
  readonly tools: Readonly<Record<string, { enabled?: boolean; visible?: boolean; restricted?: boolean }>>;
  /** Other top-level config sections, merged over the defaults (validated by the config schema). */
  readonly sections: Readonly<Record<string, unknown>>;
}

/** The templates the studio offers. Every one keeps shell and network sockets off. */
export function agentTemplates(): readonly AgentTemplate[] {
  return [
    {
      id: 'blank',
      title: 'Blank',
      description: 'The safe defaults: files, mail and timers; shell and sockets off and locked.',
      tools: {},
      sections: {},
    },
    {
      id: 'careful-writer',
      title: 'Careful writer',
      description: 'Reads and writes its files; every write from the model waits for your approval.',
      tools: {
        fs_write: { enabled: true, visible: true, restricted: true },
        sys_fetch: { enabled: false, visible: false },
      },
      sections: { instructions: 'Write clear documents in your files. Ask before overwriting anything.' },
    },
    {
      id: 'reader',
      title: 'Read-only researcher',
      description: 'Reads files and fetches through the egress policy; cannot write, delete or run code.',
      tools: {
        fs_write: { enabled: false, visible: false },
        sys_code: { enabled: false, visible: false },
        sys_lambda: { enabled: false, visible: false },
      },
      sections: { instructions: 'Research and summarise. You cannot change files.' },
    },
    {
      id: 'mail-responder',
      title: 'Mail responder',
      description: 'Receives mesh mail and wakes on each message to answer it.',
      tools: {},
      sections: {
        messaging: { receive: true, mode: 'respond_only' },
        triggers: [{ type: 'on_inbox', scope: 'agent' }],
        instructions: 'Answer each inbox message briefly.',
      },
    },
  ];
}

/** The model settings the owner chose. The key itself is never taken: only the name of its env var. */
export interface ChosenModel {
  readonly provider: (typeof AGENT_PROVIDERS)[number];
  readonly model_id?: string;
  readonly base_url?: string;
  readonly api_key_env?: string;
}

/**
 * The config overrides of a template with a chosen model, for `ControlAgents.create`. The result
 * is only a proposal: creating the agent validates it with the config schema.
 *
 * @example
 * templateConfig('reader', 'r1', { provider: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' }).model;
 */
export function templateConfig(templateId: string, name: string, model: ChosenModel): Record<string, unknown> {
  const t = agentTemplates().find((x) => x.id === templateId);
  if (t === undefined)
    throw controlError(
      'CONTROL_NOT_FOUND',
      `no agent template "${templateId}"`,
      `use one of: ${agentTemplates()
        .map((x) => x.id)
        .join(', ')}`,
    );
  const base = defaultAgentConfig({ name });
  const tools = base.tools.map((d) => ({ ...d, ...(t.tools[d.name] ?? {}) }));
  return {
    ...t.sections,
    tools,
    model: { provider: model.provider, model_id: model.model_id ?? model.provider, ...pick(model) },
    metadata: { template: t.id },
  };
}

function pick(m: ChosenModel): Record<string, string> {
  return {
    ...(m.base_url === undefined ? {} : { base_url: m.base_url }),
    ...(m.api_key_env === undefined ? {} : { api_key_env: m.api_key_env }),
  };
}
