import type { CliErrorCode, TrustErrorCode } from '@trust/core';
import { classifyAddress } from '@trust/egress';

/** The provider kinds of an agent config (`model.provider`). */
export type ModelProviderKind = 'scripted' | 'openai-compatible' | 'anthropic';

/** What the owner asked for on the command line. Each field set here wins over the agent file. */
export interface ModelFlags {
  readonly provider?: ModelProviderKind;
  readonly model?: string;
  readonly baseUrl?: string;
  /** Name of the environment variable that holds the API key. */
  readonly apiKeyEnv?: string;
  /** Let the model client reach loopback and private addresses (a model server on this machine or the LAN). */
  readonly allowLocal?: boolean;
}

/** The part of an agent config's `model` section the plan reads. */
export interface AgentModelSettings {
  readonly provider: ModelProviderKind;
  readonly model_id: string;
  readonly base_url?: string | undefined;
  readonly api_key_env?: string | undefined;
}

/** Where one setting of the plan came from. */
export type SettingSource = 'flag' | 'agent' | 'default';

/** How to reach a real model: everything but the key itself, which stays in the environment. */
export interface HttpModelPlan {
  readonly kind: 'openai-compatible' | 'anthropic';
  readonly model: string;
  readonly baseUrl: string;
  /** `host:port`: the only destination the model client may reach, and the only one the key is sent to. */
  readonly hostRule: string;
  /** The environment variable whose value the egress policy injects. */
  readonly keyEnv: string;
  /** The header the key goes in (`authorization: Bearer …` or `x-api-key: …`). */
  readonly keyHeader: 'authorization' | 'x-api-key';
  /** `strict` (public addresses only) unless local models were allowed. */
  readonly guardMode: 'strict' | 'allow-local';
  readonly sources: { readonly model: SettingSource; readonly baseUrl: SettingSource; readonly keyEnv: SettingSource };
}

/** The scripted provider (no model, no network) or a real one. */
export type ModelPlan = { readonly kind: 'scripted' } | HttpModelPlan;

/** Why no plan could be made: a stable code, the reason and the fix. */
export interface ModelPlanProblem {
  readonly code: TrustErrorCode;
  readonly message: string;
  readonly hint: string;
}

/** The outcome of {@link planModel}. */
export type ModelPlanResult =
  | { readonly ok: true; readonly plan: ModelPlan }
  | { readonly ok: false; readonly problem: ModelPlanProblem };

/** The API root each provider uses when neither a flag nor the agent names one. */
export const DEFAULT_BASE_URLS = Object.freeze({
  'openai-compatible': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
});
/** The environment variable each provider reads its key from by default. */
export const DEFAULT_KEY_ENVS = Object.freeze({
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// An agent file (perhaps a foreign one) may only name key-like variables; any other needs the
// owner's flag. Otherwise a file could have the host send e.g. a cloud secret to its model URL.
const AGENT_KEY_ENV = /(^|_)API_KEY$/;

const fail = (code: CliErrorCode, message: string, hint: string): ModelPlanResult => ({
  ok: false,
  problem: { code, message, hint },
});

/** True for `localhost` names and for IP literals that are not public (loopback, private, link-local…). */
export function isLocalModelHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const c = classifyAddress(h);
  return c !== undefined && c.kind !== 'public';
}

/**
 * Decides which model an agent talks to and how, from the owner's flags, the agent's `model`
 * settings and the environment, without reading the key into the plan. Pure. Fails closed with a
 * problem (code, reason, fix) when the key variable is unset, no model id is known, the base URL
 * is not http(s), would send the key in clear text to a remote host, or points at this machine
 * or the LAN without `allowLocal`.
 *
 * @example
 * const r = planModel({ provider: 'anthropic', model: 'claude-sonnet-4-5' }, config.model, process.env);
 * if (r.ok && r.plan.kind !== 'scripted') r.plan.keyEnv; // 'ANTHROPIC_API_KEY'
 */
export function planModel(
  flags: ModelFlags,
  settings: AgentModelSettings,
  env: Readonly<Record<string, string | undefined>>,
): ModelPlanResult {
  const kind = flags.provider ?? settings.provider;
  if (kind === 'scripted') return { ok: true, plan: { kind: 'scripted' } };
  // The agent's model settings describe its own provider; they say nothing about another one.
  const same = settings.provider === kind;
  const label = kind === 'anthropic' ? 'anthropic' : 'openai';

  const agentModel =
    same && settings.model_id !== 'scripted' && settings.model_id !== '' ? settings.model_id : undefined;
  const model = flags.model ?? agentModel;
  if (model === undefined || model.trim() === '') {
    return fail(
      'MODEL_ID_MISSING',
      `the ${kind} provider needs a model id, and the agent names none for it`,
      `pass --model <id> (e.g. ${kind === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o-mini'}), ` +
        `or set model.model_id in the agent config`,
    );
  }

  const baseUrl = flags.baseUrl ?? (same ? settings.base_url : undefined) ?? DEFAULT_BASE_URLS[kind];
  const baseSource: SettingSource =
    flags.baseUrl !== undefined ? 'flag' : same && settings.base_url !== undefined ? 'agent' : 'default';
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return fail(
      'MODEL_BASE_URL_INVALID',
      `the model base URL ${JSON.stringify(baseUrl)} is not a URL`,
      `write an absolute URL, e.g. ${DEFAULT_BASE_URLS[kind]}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return fail(
      'MODEL_BASE_URL_INVALID',
      `the model base URL must be http(s), got ${url.protocol}`,
      `write an absolute URL, e.g. ${DEFAULT_BASE_URLS[kind]}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    return fail(
      'MODEL_BASE_URL_INVALID',
      'the model base URL must not carry a user name or password',
      'the API key comes from an environment variable (--api-key-env), never from the URL',
    );
  }
  const local = isLocalModelHost(url.hostname);
  if (local && flags.allowLocal !== true) {
    return fail(
      'MODEL_BASE_URL_LOCAL',
      `the model base URL ${url.host} is on this machine or a private ` +
        `network, which the model client does not reach by default`,
      'pass --allow-local-model to use a local model server (e.g. Ollama, vLLM, LM Studio)',
    );
  }
  if (url.protocol === 'http:' && !local) {
    return fail(
      'MODEL_BASE_URL_INSECURE',
      `the model base URL ${url.host} uses http: the API key would cross the network in clear text`,
      'use https:// (plain http is accepted only for a local model server with --allow-local-model)',
    );
  }

  const agentKeyEnv = same ? settings.api_key_env : undefined;
  const keyEnv = flags.apiKeyEnv ?? agentKeyEnv ?? DEFAULT_KEY_ENVS[kind];
  const keySource: SettingSource =
    flags.apiKeyEnv !== undefined ? 'flag' : agentKeyEnv !== undefined ? 'agent' : 'default';
  if (!ENV_NAME.test(keyEnv)) {
    return fail(
      'MODEL_API_KEY_ENV_INVALID',
      `${JSON.stringify(keyEnv)} is not an environment variable name`,
      `write a name such as ${DEFAULT_KEY_ENVS[kind]}`,
    );
  }
  if (keySource === 'agent' && !AGENT_KEY_ENV.test(keyEnv)) {
    return fail(
      'MODEL_API_KEY_ENV_REFUSED',
      `the agent file names ${keyEnv} as its key variable; an agent file may only name variables ending in API_KEY`,
      `if ${keyEnv} really holds this model's key, pass --api-key-env ${keyEnv} yourself`,
    );
  }
  if ((env[keyEnv] ?? '') === '') {
    return fail(
      'MODEL_API_KEY_MISSING',
      `the ${label} provider needs an API key, and $${keyEnv} is not set`,
      `export ${keyEnv}=<your key> (trust injects it into requests to ${url.host} at egress; the ` +
        `model and the agent never see it), or name another variable with --api-key-env NAME`,
    );
  }

  if (/[\r\n\0]/.test(env[keyEnv] ?? '')) {
    return fail(
      'MODEL_API_KEY_INVALID',
      `$${keyEnv} contains a line break or NUL, which cannot go in a header`,
      `set ${keyEnv} to the key alone, on one line`,
    );
  }

  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return {
    ok: true,
    plan: {
      kind,
      model,
      baseUrl: url.href,
      hostRule: `${url.hostname}:${port}`,
      keyEnv,
      keyHeader: kind === 'anthropic' ? 'x-api-key' : 'authorization',
      guardMode: flags.allowLocal === true ? 'allow-local' : 'strict',
      sources: { model: flags.model !== undefined ? 'flag' : 'agent', baseUrl: baseSource, keyEnv: keySource },
    },
  };
}
