import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TrustError, createPrincipal } from '@trust/core';
import type { AgentConfig } from '../config/agent-config-schema.js';
import type { ToolContext, ToolDefinition } from '../gate/tool-definition.js';
import { capText } from '../tools/tool-support.js';
import { filterMcpEnv, mcpToolName } from './mcp-env.js';
import { SandboxStdioTransport } from './sandbox-stdio-transport.js';
import { createEgressMcpTransport, type McpHttpClient } from './egress-http-transport.js';
import type { StdioSandbox } from './sandbox-stdio-transport.js';

/** One MCP server entry of the agent config. */
export type McpServerConfig = AgentConfig['mcp']['servers'][number];

/** Where a server runs: a local process in the sandbox or on the host, or a `url` server reached through egress. */
export type McpPlacement = 'sandbox' | 'host' | 'remote';

/** The sandbox policy the connector asks for (an `@trust/os-sandbox` policy input). */
export interface McpSandboxPolicy {
  readonly v: 1;
  readonly capabilities: readonly string[];
  readonly systemRoots: readonly string[];
}

/** Options of {@link connectMcpServer}. */
export interface ConnectMcpOptions {
  readonly server: McpServerConfig;
  /**
   * Who installed the server: an owner's install may run on the host; an agent's runs sandboxed unless the host gate
   * allows.
   */
  readonly installedBy: 'owner' | 'agent';
  /** Requested placement (default `sandbox`). */
  readonly runOn?: McpPlacement;
  /** The host gate for agent-installed servers asking to run on the host (default false: refused). */
  readonly hostAllowed?: boolean;
  /**
   * Creates the OS sandbox for a stdio server (e.g. `(p) => createSandbox(p, { egress })` from
   * `@trust/os-sandbox`, where `egress` is the host policy that injects the server's credentials).
   */
  readonly createSandbox?: (policy: McpSandboxPolicy) => Promise<StdioSandbox & { close(): Promise<void> }>;
  /**
   * The `@trust/egress` client `url` servers are reached through (guard, policy — which injects
   * the server's credentials — and audit). Absent: `url` servers are refused (`MCP_HTTP_NO_EGRESS`).
   */
  readonly http?: McpHttpClient;
  /** Extra read-only roots the server needs, e.g. the Node install prefix for a Node server. `undefined`/`[]`: none. */
  readonly readOnlyRoots?: readonly string[];
  /** Connection deadline (default 120 s: first runs may download). */
  readonly connectTimeoutMs?: number;
}

/** A connected server and its tools, ready for the registry. */
export interface McpConnection {
  readonly server: string;
  readonly placement: McpPlacement;
  /** Tools named `mcp_<server>_<tool>`; they still need declarations in the config to be callable. */
  readonly tools: ToolDefinition<never>[];
  /** Env vars removed by the block list. */
  readonly refusedEnv: readonly string[];
  /** Why the connection ended (the server exited or the transport failed), or null while it is up. */
  closedReason?(): string | null;
  close(): Promise<void>;
}

interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/**
 * Connects one MCP server with the official SDK and turns its tools into gate-ready
 * definitions. stdio servers always run inside `@trust/os-sandbox` with the server's declared
 * capabilities plus stdin/stdout/stderr, unless an owner-installed server is placed on the host
 * (its tool descriptions then say `[host]`). Dangerous env vars never reach the process.
 * Results are capped at `limits.max_tool_result_tokens`.
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
  if (server.url && server.command)
    throw new TrustError('MCP_SERVER_INVALID', `MCP server ${server.name} has both "url" and "command"`, {
      hint: 'set "url" for an HTTP server or "command" for a stdio server, not both',
    });
  if (!server.url && !server.command)
    throw new TrustError('MCP_SERVER_INVALID', `MCP server ${server.name} has no command`, {
      hint: 'set "command" (and "args") for a stdio server, or "url" for an HTTP server',
    });
  const runOn: McpPlacement = server.url ? 'remote' : options.runOn === 'host' ? 'host' : 'sandbox';
  if (runOn === 'host' && options.installedBy === 'agent' && options.hostAllowed !== true) {
    throw new TrustError(
      'MCP_HOST_REFUSED',
      `MCP server ${server.name} was installed by the agent and may not run on the host`,
      { hint: 'run it sandboxed, or have the owner allow host access for it' },
    );
  }
  // A url server runs no process: its env and capabilities do not apply (credentials come from the egress policy).
  const { env, refused } = server.url ? { env: {}, refused: [] as string[] } : filterMcpEnv(server.env);
  const argv = [server.command ?? '', ...server.args];
  let sandbox: (StdioSandbox & { close(): Promise<void> }) | undefined;
  let transport: Transport;
  if (server.url) {
    transport = createEgressMcpTransport(server.url, options.http, createPrincipal('plugin', `mcp:${server.name}`));
  } else if (runOn === 'sandbox') {
    if (!options.createSandbox)
      throw new TrustError(
        'MCP_SANDBOX_MISSING',
        `MCP server ${server.name} runs sandboxed, but no createSandbox was given`,
        { hint: 'pass createSandbox from @trust/os-sandbox' },
      );
    sandbox = await options.createSandbox({
      v: 1,
      capabilities: ['stdin', 'stdout', 'stderr', ...server.capabilities],
      systemRoots: [...(options.readOnlyRoots ?? [])],
    });
    transport = new SandboxStdioTransport(sandbox, argv, env);
  } else {
    // Owner-installed, on the host by the owner's choice: argv array, no shell, scrubbed env.
    transport = new StdioClientTransport({
      command: server.command!,
      args: [...server.args],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stderr: 'pipe',
    });
  }
  const client = new Client({ name: 'trust-agent-runtime', version: '0.1.0' });
  const deadline = options.connectTimeoutMs ?? 120_000;
  let tools: McpToolInfo[];
  try {
    await withTimeout(client.connect(transport), deadline, server.name);
    tools = (await withTimeout(client.listTools(), deadline, server.name)).tools as McpToolInfo[];
  } catch (e) {
    await client.close().catch(() => {});
    await sandbox?.close().catch(() => {});
    const tail =
      transport instanceof SandboxStdioTransport && transport.stderrTail
        ? ` (server stderr: ${transport.stderrTail.slice(-300)})`
        : '';
    throw new TrustError(
      'MCP_CONNECT_FAILED',
      `could not connect MCP server ${server.name}: ${(e as Error)?.message ?? String(e)}${tail}`,
      { cause: e },
    );
  }
  // The SDK reports a transport that ends (a server that exits, a dropped HTTP session).
  let closedReason: string | null = null;
  client.onclose = () => {
    closedReason ??= 'the connection closed (the server exited or the transport ended)';
  };
  const placementTag = runOn === 'host' ? '[host] ' : runOn === 'remote' ? '[remote] ' : '[sandboxed] ';
  const defs: ToolDefinition<never>[] = tools.map(
    (t) =>
      ({
        name: mcpToolName(server.name, t.name),
        description: `${placementTag}MCP ${server.name}: ${(t.description ?? t.name).slice(0, 2000)}`,
        inputSchema: t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : { type: 'object' },
        async run(args: Record<string, unknown>, ctx: ToolContext) {
          const r = (await client.callTool({ name: t.name, arguments: args }, undefined, { signal: ctx.signal })) as {
            content?: Array<{ type: string; text?: string }>;
            isError?: boolean;
          };
          const text = (r.content ?? [])
            .map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type} content omitted]`))
            .join('\n');
          const capped = capText(text, ctx.config.limits.max_tool_result_tokens).text;
          if (r.isError) throw new TrustError('MCP_TOOL_ERROR', `${server.name}/${t.name} failed: ${capped}`);
          return { content: capped };
        },
      }) as unknown as ToolDefinition<never>,
  );
  return {
    server: server.name,
    placement: runOn,
    tools: defs,
    refusedEnv: refused,
    closedReason: () => closedReason,
    async close() {
      closedReason ??= 'closed by the runtime';
      await client.close().catch(() => {});
      await sandbox?.close().catch(() => {});
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(
      () => reject(new TrustError('MCP_TIMEOUT', `MCP server ${name} did not answer within ${ms} ms`)),
      ms,
    );
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
