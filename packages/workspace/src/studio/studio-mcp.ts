// How a workspace connects an agent's MCP servers when the agent is started: every stdio server
// runs inside the OS sandbox (the runtime's own connector, with the capabilities the server's
// config declares plus stdin/stdout/stderr), never on the host. `openWorkspace` adds the
// workspace egress engine on top (`mcpUnderEgress`): `url` servers and stdio servers granted
// http/tcp/udp reach the network only through it.
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentMcpOptions } from '@trust/agent-runtime';

/** Options of {@link studioMcpOptions}. */
export interface StudioMcpOptions {
  /** Source of granted variables (a server's `env:NAME` capabilities). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the compiled sandbox launcher is cached. */
  readonly launcherCacheDir: string;
  /** Connection deadline per server (default the runtime's, 120 s: a first run may compile the launcher). */
  readonly connectTimeoutMs?: number;
}

/**
 * The MCP options of each studio agent: servers count as installed by the agent (the weaker
 * trust), so none may run on the host; each stdio server gets its own sandbox, closed with its
 * connection. The Node install prefix is readable (read-only) so Node servers can start.
 *
 * @example
 * createAgentOpener({ provider, mcp: studioMcpOptions({ env: io.env, launcherCacheDir }) });
 */
export function studioMcpOptions(options: StudioMcpOptions): (id: string) => AgentMcpOptions {
  const nodePrefix = dirname(dirname(realpathSync(process.execPath)));
  return () => ({
    installedBy: () => 'agent',
    runOn: () => 'sandbox',
    createSandbox: async (policy) => {
      const { createSandbox } = await import('@trust/os-sandbox');
      return createSandbox(policy as never, { env: options.env, launcherCacheDir: options.launcherCacheDir });
    },
    readOnlyRoots: [nodePrefix],
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  });
}
