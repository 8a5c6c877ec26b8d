import { TrustError } from '@trust/core';
import type { AgentConfig } from '../config/agent-config-schema.js';
import { toolFlags } from '../gate/access-matrix.js';
import { mcpToolName } from '../gate/mcp-name.js';
import type { ToolContext, ToolDefinition, ToolRegistry } from '../gate/tool-definition.js';
import { mcpToolDescription } from './mcp-connector.js';
import { mcpLiveState, type McpRefusedTool, type McpServerHealth, type McpServerLiveState } from './mcp-live-state.js';
import { startMcpService, type McpService, type McpServiceOptions } from './mcp-service.js';
import type { McpLogRow } from './mcp-stderr-log.js';
import type { McpToolInfo } from './mcp-tool-list.js';
import type { McpPlacement, McpServerConfig } from './mcp-session.js';

/** The longest gate name a tool may get (a declaration's name is at most 200 characters). */
const MAX_TOOL_NAME = 200;

/** Options of {@link createMcpServers}. */
export interface McpServersOptions {
  /** The agent's registry; each server's tools are registered (and unregistered) here. */
  readonly registry: ToolRegistry;
  /** The agent's current config (tool risk in the status). */
  config(): AgentConfig;
  /** The agent's logs. */
  log(row: McpLogRow): void;
}

/** What {@link McpServers.start} resolves to, per server that became ready. */
export interface McpStarted {
  readonly server: string;
  readonly placement: McpPlacement;
  readonly tools: string[];
  readonly refusedEnv: readonly string[];
}

/** The long-lived MCP servers of one agent (see {@link createMcpServers}). */
export interface McpServers {
  /**
   * Starts each server independently and at once (one that hangs or fails never delays the
   * others: each registers its tools as soon as it is ready). Resolves when every server has
   * had its first start; rejects with the first failure after that, the others staying up. A
   * server that is ready or starting is left as it is; a degraded or failed one is started
   * again with these options.
   */
  start(
    servers: readonly McpServerConfig[],
    optionsFor: (server: McpServerConfig) => Omit<McpServiceOptions, 'server' | 'onTools' | 'log'>,
  ): Promise<McpStarted[]>;
  /** Each server's health and tools, in start order. */
  status(): McpServerHealth[];
  /** {@link McpServers.status} as `Agent.mcpStatus()` entries. */
  liveStates(): McpServerLiveState[];
  /** A server's service, for calls with a per-call deadline (`callTool(tool, args, { timeoutMs })`). */
  service(server: string): McpService | undefined;
  close(): Promise<void>;
}

interface Entry {
  readonly service: McpService;
  readonly owned: Map<string, { def: ToolDefinition<never>; tool: string }>;
  refused: McpRefusedTool[];
}

/**
 * Runs an agent's MCP servers as services and keeps the registry in step with their tool lists:
 * names by the injective `mcpToolName`, each tool tagged with the server that registered it (the
 * gate reads its flags from there), a second tool of an existing name refused loudly (an error
 * on the server's status and in the logs, never a silent drop), tools a server no longer lists
 * removed.
 *
 * @example
 * const servers = createMcpServers({ registry, config: () => adf.config(), log: (r) => adf.logs.add(r) });
 * await servers.start(adf.config().mcp.servers, () => ({ installedBy: 'agent', createSandbox }));
 */
export function createMcpServers(options: McpServersOptions): McpServers {
  const { registry } = options;
  const entries: Entry[] = [];

  const makeDef = (entry: Entry, server: string, placement: McpPlacement, info: McpToolInfo) =>
    ({
      name: mcpToolName(server, info.name),
      description: mcpToolDescription(placement, server, info.description),
      inputSchema: info.inputSchema,
      mcpServer: server,
      run: (args: Record<string, unknown>, ctx: ToolContext) =>
        entry.service.callTool(info.name, args, {
          signal: ctx.signal,
          maxTokens: ctx.config.limits.max_tool_result_tokens,
        }),
    }) as unknown as ToolDefinition<never>;

  const sync = (entry: Entry, server: string, tools: readonly McpToolInfo[], refused: McpRefusedTool[]): void => {
    const placement = entry.service.health().placement ?? 'sandbox';
    const next = new Map<string, McpToolInfo>();
    for (const t of tools) {
      const name = mcpToolName(server, t.name);
      if (name.length > MAX_TOOL_NAME) {
        refused.push({
          tool: t.name,
          code: 'TOOL_NAME_INVALID',
          message: `its name ${name.slice(0, 80)}… is too long`,
        });
      } else if (next.has(name)) {
        refused.push({ tool: t.name, code: 'TOOL_ALREADY_REGISTERED', message: `the server lists "${t.name}" twice` });
      } else next.set(name, t);
    }
    for (const [name, own] of entry.owned) {
      registry.unregister?.(own.def);
      entry.owned.delete(name);
    }
    for (const [name, t] of next) {
      const def = makeDef(entry, server, placement, t);
      try {
        registry.register(def);
        entry.owned.set(name, { def, tool: t.name });
      } catch (e) {
        const code = e instanceof TrustError ? e.code : 'TOOL_ALREADY_REGISTERED';
        refused.push({ tool: t.name, code, message: e instanceof Error ? e.message : String(e) });
      }
    }
    entry.refused = refused;
    for (const r of refused)
      options.log({
        level: 'error',
        origin: 'mcp',
        event: 'mcp.tool_refused',
        target: server,
        message: `tool ${JSON.stringify(r.tool.slice(0, 128))} refused (${r.code}): ${r.message}`.slice(0, 2000),
      });
  };

  const healthOf = (entry: Entry): McpServerHealth => {
    const config = options.config();
    const h = entry.service.health();
    return {
      ...h,
      server: entry.service.server,
      tools: [...entry.owned].map(([name, own]) => {
        const f = toolFlags(config, name, entry.service.server);
        const risk = f?.enabled !== true ? 'disabled' : f.restricted ? 'approval' : 'runs';
        return { name, tool: own.tool, risk } as const;
      }),
      refusedTools: entry.refused,
    };
  };

  return {
    async start(servers, optionsFor) {
      const started: Array<{ entry: Entry; config: McpServerConfig }> = [];
      const seen = new Set<string>();
      for (const config of servers) {
        // A second config entry of one name starts too: its tools collide, and are refused loudly.
        const again = seen.has(config.name);
        seen.add(config.name);
        const existing = again ? undefined : entries.find((e) => e.service.server === config.name);
        const st = existing?.service.health().state;
        if (st === 'ready' || st === 'starting') continue;
        if (existing) {
          entries.splice(entries.indexOf(existing), 1);
          for (const own of existing.owned.values()) registry.unregister?.(own.def);
          await existing.service.close();
        }
        const entry: Entry = { owned: new Map(), refused: [], service: undefined as unknown as McpService };
        (entry as { service: McpService }).service = startMcpService({
          ...optionsFor(config),
          server: config,
          log: options.log,
          onTools: (tools, refused) =>
            sync(
              entry,
              config.name,
              tools,
              refused.map((r) => ({ tool: r.tool, code: 'TOOL_NAME_INVALID', message: r.reason })),
            ),
        });
        entries.push(entry);
        started.push({ entry, config });
      }
      const results = await Promise.allSettled(started.map((s) => s.entry.service.firstStart()));
      const firstError = results.find((r) => r.status === 'rejected');
      if (firstError) throw (firstError as PromiseRejectedResult).reason;
      return started.map(({ entry }) => {
        const h = entry.service.health();
        return {
          server: entry.service.server,
          placement: h.placement ?? 'sandbox',
          tools: [...entry.owned.keys()],
          refusedEnv: h.refusedEnv,
        };
      });
    },
    status: () => entries.map(healthOf),
    liveStates: () => entries.map((e) => mcpLiveState(healthOf(e))),
    service: (server) => entries.find((e) => e.service.server === server)?.service,
    async close() {
      const all = entries.splice(0);
      for (const e of all) for (const own of e.owned.values()) registry.unregister?.(own.def);
      await Promise.all(all.map((e) => e.service.close()));
    },
  };
}
