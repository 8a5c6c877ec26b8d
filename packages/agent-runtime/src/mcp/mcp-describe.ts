import type { AgentConfig } from '../config/agent-config-schema.js';
import { effectiveToolDeclarations } from '../config/index.js';
import { toolFlags } from '../gate/access-matrix.js';
import { parseMcpToolName } from '../gate/mcp-name.js';

/** What the owner should know of one configured server before running it (see {@link describeMcpServers}). */
export interface McpServerReport {
  readonly name: string;
  /** `stdio` (a process in the OS sandbox unless the owner places it on the host) or `http` (through egress). */
  readonly transport: 'stdio' | 'http';
  /** The command line or the URL. */
  readonly target: string;
  /** Sandbox grants beyond stdin/stdout/stderr (`[]`: none). */
  readonly grants: readonly string[];
  /** How it reaches the network: `none`, or through the host's egress policy. */
  readonly network: 'none' | 'egress-policy';
  /** Every tool of the server needs approval from the LLM loop. */
  readonly restricted: boolean;
  /** Its declared tools and their risk: `disabled`, `approval` (restricted) or `runs`. */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly risk: 'disabled' | 'approval' | 'runs' }>;
  /** Its last recorded health in the agent's logs (`mcp.connected`, `mcp.failed`, …), or null: never run. */
  readonly lastSeen: {
    readonly event: string;
    readonly level: string;
    readonly message: string;
    readonly at: string;
  } | null;
}

const NETWORK_CAPS = ['http', 'tcp', 'udp', 'network', 'sockets'];

/**
 * Describes each configured MCP server from the file alone (no server runs): its transport and
 * target, sandbox grants, network reach, restriction, its declared tools with their risk, and
 * the last health the runtime logged for it. Text is the file's (untrusted): escape it for a terminal.
 *
 * @example
 * describeMcpServers(adf.config(), adf.logs.list({ limit: 2000 }));
 */
export function describeMcpServers(
  config: AgentConfig,
  logs: ReadonlyArray<{
    origin: string | null;
    event: string | null;
    target: string | null;
    level: string;
    message: string;
    createdAt: string;
  }>,
): McpServerReport[] {
  const decls = [...effectiveToolDeclarations(config).keys()];
  return config.mcp.servers.map((s) => {
    const last = [...logs].reverse().find((l) => l.origin === 'mcp' && l.target === s.name && l.event !== 'mcp.stderr');
    const tools = decls
      .filter((n) => parseMcpToolName(n)?.server === s.name)
      .map((name) => {
        const f = toolFlags(config, name, s.name);
        const risk = f?.enabled !== true ? 'disabled' : f.restricted ? 'approval' : 'runs';
        return { name, risk } as const;
      });
    return {
      name: s.name,
      transport: s.url ? 'http' : 'stdio',
      target: s.url ?? [s.command ?? '', ...s.args].join(' '),
      grants: [...s.capabilities],
      network: s.url || s.capabilities.some((c) => NETWORK_CAPS.includes(c)) ? 'egress-policy' : 'none',
      restricted: s.restricted === true,
      tools,
      lastSeen: last
        ? { event: last.event ?? '', level: last.level, message: last.message.slice(0, 500), at: last.createdAt }
        : null,
    };
  });
}
