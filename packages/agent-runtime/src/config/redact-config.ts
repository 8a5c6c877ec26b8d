import type { AgentConfig } from './agent-config-schema.js';

/** The marker that replaces a secret in `sys_get_config` output. */
export const REDACTED = '__redacted__';

/**
 * Keys of free-form owner records (`metadata`) whose values are treated as secrets. Anchored on a
 * whole word, so `github_token` is a secret and `max_tokens` is not.
 */
const SECRET_WORD =
  /(^|[_.-])(api_?key|token|secret|password|passphrase|authorization|credentials?|private_?key|cookie)$/i;

/**
 * A copy of the config safe to show the agent (and the studio). Only real secrets are redacted,
 * by their place in the schema, never by a key-name guess over the whole document:
 * `model.api_key`, every env value of every MCP server, and under the free-form `metadata` the
 * values whose key names a secret (`github_token`, `password`). Limits such as
 * `limits.max_file_read_tokens` or `model.max_tokens` are not secrets and stay visible.
 *
 * @example
 * redactConfig(cfg).model.api_key; // '__redacted__' when set
 */
export function redactConfig(config: AgentConfig): Record<string, unknown> {
  const out = structuredClone(config) as unknown as Record<string, unknown> & {
    model: Record<string, unknown>;
    mcp: { servers: { env: Record<string, unknown> }[] };
    metadata: Record<string, unknown>;
  };
  if (isSet(out.model.api_key)) out.model.api_key = REDACTED;
  for (const server of out.mcp.servers) {
    for (const k of Object.keys(server.env)) if (isSet(server.env[k])) server.env[k] = REDACTED;
  }
  out.metadata = redactRecord(out.metadata);
  return out;
}

function redactRecord(value: unknown): Record<string, unknown> {
  return walk(value, false) as Record<string, unknown>;
}

function walk(value: unknown, secret: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, secret));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, secret || SECRET_WORD.test(k));
    return out;
  }
  return secret && isSet(value) ? REDACTED : value;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}
