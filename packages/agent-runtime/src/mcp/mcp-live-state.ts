import type { McpConnection, McpPlacement } from './mcp-connector.js';

/** One entry of `Agent.mcpStatus()`. Messages are the connector's and the server's text (untrusted). */
export type McpServerLiveState =
  | { readonly server: string; readonly kind: 'connected'; readonly placement: McpPlacement; readonly tools: number }
  | { readonly server: string; readonly kind: 'failed'; readonly code: string; readonly message: string }
  | { readonly server: string; readonly kind: 'disconnected'; readonly message: string };

/** The connect failures of one agent, by server name (kept until that server connects). */
export type McpFailures = Map<string, { code: string; message: string }>;

/**
 * Records why a server failed to connect and returns the log row that says so. The code is the
 * error's own (`MCP_CONNECT_FAILED`, `MCP_SANDBOX_MISSING`, …).
 */
export function recordMcpFailure(failures: McpFailures, server: string, e: unknown) {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : String(e);
  failures.set(server, { code: typeof code === 'string' ? code : 'MCP_CONNECT_FAILED', message });
  return { level: 'error', origin: 'mcp', event: 'mcp.failed', target: server, message: message.slice(0, 2000) };
}

/**
 * The live state of the configured servers, in config order: connected, disconnected (it was up
 * and its connection ended) or failed. A server the runtime never tried is left out: not started.
 */
export function mcpLiveStates(
  servers: readonly { readonly name: string }[],
  connections: readonly McpConnection[],
  failures: McpFailures,
): McpServerLiveState[] {
  const live = new Map(connections.map((c) => [c.server, c]));
  const out: McpServerLiveState[] = [];
  for (const { name } of servers) {
    const c = live.get(name);
    const failed = failures.get(name);
    const closed = c?.closedReason?.() ?? null;
    if (c !== undefined && closed !== null) out.push({ server: name, kind: 'disconnected', message: closed });
    else if (c !== undefined)
      out.push({ server: name, kind: 'connected', placement: c.placement, tools: c.tools.length });
    else if (failed !== undefined) out.push({ server: name, kind: 'failed', ...failed });
  }
  return out;
}
