import type { ToolContext, ToolDefinition } from '../gate/tool-definition.js';
import { mcpToolName } from '../gate/mcp-name.js';
import { callMcpText } from './mcp-tool-call.js';
import { listMcpTools, type McpToolListLimits } from './mcp-tool-list.js';
import { openMcpSession, withTimeout, type McpPlacement, type McpSessionOptions } from './mcp-session.js';

export type { McpPlacement, McpSandboxPolicy, McpServerConfig, McpResourceLimits } from './mcp-session.js';

/** Options of {@link connectMcpServer}. */
export interface ConnectMcpOptions extends McpSessionOptions {
  /** Deadline of each tool call (default 60 s); on expiry `notifications/cancelled` is sent. */
  readonly callTimeoutMs?: number;
  /** Bounds on the server's tools/list (count, total bytes, description bytes). */
  readonly toolList?: McpToolListLimits;
}

/** A connected server and its tools, ready for the registry (one connection, no restart; see `createMcpServers`). */
export interface McpConnection {
  readonly server: string;
  readonly placement: McpPlacement;
  /** Tools named by `mcpToolName`; they still need declarations in the config to be callable. */
  readonly tools: ToolDefinition<never>[];
  /** Env vars removed by the block list. */
  readonly refusedEnv: readonly string[];
  /** Why the connection ended (the server exited or the transport failed), or null while it is up. */
  closedReason?(): string | null;
  close(): Promise<void>;
}

/** The description trust shows for a server's tool: its placement, the server and the text, bounded. */
export function mcpToolDescription(placement: McpPlacement, server: string, description: string): string {
  const tag = placement === 'host' ? '[host] ' : placement === 'remote' ? '[remote] ' : '[sandboxed] ';
  return `${tag}MCP ${server}: ${description.slice(0, 2000)}`;
}

/**
 * Connects one MCP server once with the official SDK and turns its tools into gate-ready
 * definitions. stdio servers always run inside `@trust/os-sandbox` as a service run (no
 * lifetime budget; memory, processes and open files bounded) with the server's declared
 * capabilities plus stdin/stdout/stderr, unless an owner-installed server is placed on the host
 * (its tool descriptions then say `[host]`). Dangerous env vars never reach the process. Every
 * line from the server is bounded; no server schema is compiled; results are capped at
 * `limits.max_tool_result_tokens`. A long-lived agent uses `createMcpServers` (restarts, health).
 *
 * @example
 * ```ts
 * const conn = await connectMcpServer({ server, installedBy: 'agent', createSandbox: (p) => createSandbox(p, { egress
 * }) });
 * const registry = createToolRegistry(conn.tools);
 * ```
 */
export async function connectMcpServer(options: ConnectMcpOptions): Promise<McpConnection> {
  const { server } = options;
  const session = await openMcpSession(options);
  let tools: Awaited<ReturnType<typeof listMcpTools>>['tools'];
  try {
    const deadline = options.connectTimeoutMs ?? 120_000;
    tools = (
      await withTimeout(listMcpTools(session.client, options.toolList, { timeout: deadline }), deadline, server.name)
    ).tools;
  } catch (e) {
    await session.close();
    throw e;
  }
  // The SDK reports a transport that ends (a server that exits, a dropped HTTP session).
  let closedReason: string | null = null;
  session.client.onclose = () => {
    closedReason ??= 'the connection closed (the server exited or the transport ended)';
  };
  const defs = tools.map(
    (t) =>
      ({
        name: mcpToolName(server.name, t.name),
        description: mcpToolDescription(session.placement, server.name, t.description),
        inputSchema: t.inputSchema,
        mcpServer: server.name,
        run: (args: Record<string, unknown>, ctx: ToolContext) =>
          callMcpText(session.client, t.name, args, {
            ...(options.callTimeoutMs !== undefined ? { timeoutMs: options.callTimeoutMs } : {}),
            signal: ctx.signal,
            maxTokens: ctx.config.limits.max_tool_result_tokens,
            label: `${server.name}/${t.name}`,
          }),
      }) as unknown as ToolDefinition<never>,
  );
  return {
    server: server.name,
    placement: session.placement,
    tools: defs,
    refusedEnv: session.refusedEnv,
    closedReason: () => closedReason,
    async close() {
      closedReason ??= 'closed by the runtime';
      await session.close();
    },
  };
}
