import type { AgentConfig } from './agent-config-schema.js';

/** The marker that replaces a secret in `sys_get_config` output. */
export const REDACTED = '__redacted__';

const SECRET_KEY = /(api_?key|token|secret|password|passphrase|authorization|credential|private_?key|cookie)/i;

/**
 * A copy of the config safe to show the agent: values under secret-looking keys, and every env
 * value of every MCP server, become `__redacted__`.
 *
 * @example
 * redactConfig(cfg).model.api_key; // '__redacted__' when set
 */
export function redactConfig(config: AgentConfig): Record<string, unknown> {
  return walk(config, false) as Record<string, unknown>;
}

function walk(value: unknown, secret: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, secret));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, secret || SECRET_KEY.test(k) || k === 'env' || k === 'headers');
    return out;
  }
  if (secret && value !== undefined && value !== null && value !== '') return REDACTED;
  return value;
}
