import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TrustError, createPrincipal } from '@trust/core';
import type { AgentConfig } from '../config/agent-config-schema.js';
import { createEgressMcpTransport, type McpHttpClient } from './egress-http-transport.js';
import { createHostStdio } from './host-stdio.js';
import { filterMcpEnv } from './mcp-env.js';
import { createNonEvaluatingValidator } from './mcp-tool-list.js';
import { SandboxStdioTransport, type StdioSandbox } from './sandbox-stdio-transport.js';

/** One MCP server entry of the agent config. */
export type McpServerConfig = AgentConfig['mcp']['servers'][number];

/** Where a server runs: a local process in the sandbox or on the host, or a `url` server reached through egress. */
export type McpPlacement = 'sandbox' | 'host' | 'remote';

/** OS limits of a sandboxed server (`@trust/os-sandbox` policy `limits`). */
export interface McpResourceLimits {
  /** Address space (RLIMIT_AS) and the memory cgroup where one is writable (default 1 GiB). */
  readonly memoryBytes?: number;
  /** Processes (the pids cgroup, plus RLIMIT_NPROC) (default 64). */
  readonly pids?: number;
  /** Open files (RLIMIT_NOFILE) (default 256). */
  readonly files?: number;
}

/** The sandbox policy the connector asks for (an `@trust/os-sandbox` policy input). */
export interface McpSandboxPolicy {
  readonly v: 1;
  readonly capabilities: readonly string[];
  readonly systemRoots: readonly string[];
  /** Memory, processes and open files; no time or output budget (the server runs as a service). */
  readonly limits: { readonly memoryBytes: number; readonly pids: number; readonly files: number };
}

/** How one server is opened (see `connectMcpServer`, whose options these are). */
export interface McpSessionOptions {
  readonly server: McpServerConfig;
  readonly installedBy: 'owner' | 'agent';
  readonly runOn?: McpPlacement;
  readonly hostAllowed?: boolean;
  readonly createSandbox?: (policy: McpSandboxPolicy) => Promise<StdioSandbox & { close(): Promise<void> }>;
  readonly http?: McpHttpClient;
  readonly readOnlyRoots?: readonly string[];
  readonly connectTimeoutMs?: number;
  readonly resources?: McpResourceLimits;
  /** Bytes per JSON-RPC line from a stdio server (default 8 MiB). */
  readonly maxLineBytes?: number;
  /** Each stderr chunk of a stdio server. */
  readonly onStderr?: (text: string) => void;
}

/** An initialized client of one server. */
export interface McpSession {
  readonly client: Client;
  readonly placement: McpPlacement;
  readonly refusedEnv: readonly string[];
  /** The last bytes of the server's stderr ('' for url servers). */
  stderrTail(): string;
  /** Why the transport ended the server itself (a line over the limit), or null. */
  fault(): TrustError | null;
  close(): Promise<void>;
}

/** The error codes a restart cannot cure: the server is `failed` at once. */
export const PERMANENT_MCP_CODES: readonly string[] = Object.freeze([
  'MCP_SERVER_INVALID',
  'MCP_HOST_REFUSED',
  'MCP_SANDBOX_MISSING',
  'MCP_HTTP_NO_EGRESS',
]);

/**
 * Checks the placement, starts the server's transport (sandboxed service run, host process or
 * egress HTTP) and initializes an SDK client that compiles no server schema. Refusals are coded
 * (`MCP_SERVER_INVALID`, `MCP_HOST_REFUSED`, `MCP_SANDBOX_MISSING`, `MCP_HTTP_NO_EGRESS`); a server
 * that does not initialize within the deadline is `MCP_CONNECT_FAILED` with its stderr tail.
 *
 * @example
 * const session = await openMcpSession({ server, installedBy: 'agent', createSandbox });
 */
export async function openMcpSession(options: McpSessionOptions): Promise<McpSession> {
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
  const io = {
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  };
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
    const r = options.resources ?? {};
    sandbox = await options.createSandbox({
      v: 1,
      capabilities: ['stdin', 'stdout', 'stderr', ...server.capabilities],
      systemRoots: [...(options.readOnlyRoots ?? [])],
      limits: { memoryBytes: r.memoryBytes ?? 1024 ** 3, pids: r.pids ?? 64, files: r.files ?? 256 },
    });
    transport = new SandboxStdioTransport(sandbox, argv, env, io);
  } else {
    // Owner-installed, on the host by the owner's choice: argv array, no shell, scrubbed env.
    transport = new SandboxStdioTransport(createHostStdio(), argv, env, io);
  }
  const stdio = transport instanceof SandboxStdioTransport ? transport : undefined;
  const client = new Client(
    { name: 'trust-agent-runtime', version: '0.1.0' },
    { jsonSchemaValidator: createNonEvaluatingValidator() },
  );
  const close = async (): Promise<void> => {
    await client.close().catch(() => {});
    await sandbox?.close().catch(() => {});
  };
  const deadline = options.connectTimeoutMs ?? 120_000;
  try {
    await withTimeout(client.connect(transport, { timeout: deadline }), deadline, server.name);
  } catch (e) {
    await close();
    const tail = stdio?.stderrTail ? ` (server stderr: ${stdio.stderrTail.slice(-300)})` : '';
    throw new TrustError(
      'MCP_CONNECT_FAILED',
      `could not connect MCP server ${server.name}: ${(e as Error)?.message ?? String(e)}${tail}`,
      { cause: e },
    );
  }
  return {
    client,
    placement: runOn,
    refusedEnv: refused,
    stderrTail: () => stdio?.stderrTail ?? '',
    fault: () => stdio?.fault ?? null,
    close,
  };
}

/** Rejects with `MCP_TIMEOUT` when `p` has not settled within `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, name: string): Promise<T> {
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
