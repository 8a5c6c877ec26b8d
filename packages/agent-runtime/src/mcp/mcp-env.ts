import { allow, deny } from '@trust/core';
import type { Decision } from '@trust/core';

/** Env vars that inject code into a process (loaders, runtimes): never passed to an MCP server. */
export const BLOCKED_MCP_ENV: readonly string[] = Object.freeze([
  'NODE_OPTIONS',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'ELECTRON_RUN_AS_NODE',
  'BASH_ENV',
]);
/** Prefixes blocked the same way (macOS dyld injection). */
export const BLOCKED_MCP_ENV_PREFIXES: readonly string[] = Object.freeze(['DYLD_']);

/**
 * Decides whether one env var may reach an MCP server. Names are compared upper-cased, so a
 * lower-case spelling cannot slip through on a case-insensitive platform.
 *
 * @example
 * evaluateMcpEnvVar('NODE_OPTIONS'); // { allow: false, code: 'MCP_ENV_BLOCKED', … }
 */
export function evaluateMcpEnvVar(name: string): Decision {
  const upper = name.toUpperCase();
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    return deny('MCP_ENV_INVALID', `"${name}" is not a valid environment variable name`, { rule: 'env-name' });
  if (BLOCKED_MCP_ENV.includes(upper) || BLOCKED_MCP_ENV_PREFIXES.some((p) => upper.startsWith(p))) {
    return deny(
      'MCP_ENV_BLOCKED',
      `${name} can inject code into the server process and is never passed to MCP servers`,
      { rule: 'mcp-env-blocklist', hint: `remove ${name} from the server's env` },
    );
  }
  return allow('mcp-env');
}

/** Filters a server's env: returns what may pass and what was refused (for the audit trail). */
export function filterMcpEnv(env: Readonly<Record<string, string>>): {
  env: Record<string, string>;
  refused: string[];
} {
  const out: Record<string, string> = {};
  const refused: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (evaluateMcpEnvVar(k).allow) out[k] = v;
    else refused.push(k);
  }
  return { env: out, refused };
}

export { mcpToolName } from '../gate/mcp-name.js';
