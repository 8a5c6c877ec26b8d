import type { McpHealthState, McpServiceHealth } from './mcp-service.js';
import type { McpPlacement } from './mcp-session.js';

/**
 * One tool of a server as the owner should see it: its gate name, the server's own name and its
 * risk under the current config: `disabled` (not declared enabled, it cannot run), `approval`
 * (restricted: an LLM call waits for the owner) or `runs` (enabled and unrestricted).
 */
export interface McpToolStatus {
  readonly name: string;
  readonly tool: string;
  readonly risk: 'disabled' | 'approval' | 'runs';
}

/** A tool of the server that is not registered, and why (a name collision is an error here, never a silent drop). */
export interface McpRefusedTool {
  readonly tool: string;
  readonly code: string;
  readonly message: string;
}

/** The health of one server, for the runtime panel and `trust agent inspect`. Text is the server's (untrusted). */
export interface McpServerHealth extends McpServiceHealth {
  readonly server: string;
  readonly tools: readonly McpToolStatus[];
  readonly refusedTools: readonly McpRefusedTool[];
}

/**
 * One entry of `Agent.mcpStatus()`: `connected` (ready), `failed` (degraded — its last start
 * failed or it ended, and a restart is scheduled — or given up, with the code and message) or
 * `disconnected` (starting), each with the
 * server's full {@link McpServerHealth}. Messages are the connector's and the server's text (untrusted).
 */
export type McpServerLiveState =
  | {
      readonly server: string;
      readonly kind: 'connected';
      readonly placement: McpPlacement;
      readonly tools: number;
      readonly health: McpServerHealth;
    }
  | {
      readonly server: string;
      readonly kind: 'failed';
      readonly code: string;
      readonly message: string;
      readonly health: McpServerHealth;
    }
  | {
      readonly server: string;
      readonly kind: 'disconnected';
      readonly message: string;
      readonly health: McpServerHealth;
    };

const STATE_TEXT: Record<McpHealthState, string> = {
  starting: 'starting',
  ready: 'ready',
  degraded: 'degraded',
  failed: 'failed',
};

/**
 * The live state entry of one server's health.
 *
 * @example
 * mcpLiveState(health); // { server: 'vault', kind: 'connected', placement: 'sandbox', tools: 3, health }
 */
export function mcpLiveState(health: McpServerHealth): McpServerLiveState {
  const { server } = health;
  if (health.state === 'ready')
    return { server, kind: 'connected', placement: health.placement ?? 'sandbox', tools: health.tools.length, health };
  // degraded: its last start failed or it ended, and a restart is scheduled; failed: given up.
  if (health.state === 'failed' || health.state === 'degraded')
    return {
      server,
      kind: 'failed',
      code: health.reason?.code ?? 'MCP_CONNECT_FAILED',
      message: (health.reason?.message ?? 'failed') + (health.state === 'degraded' ? ' (a restart is scheduled)' : ''),
      health,
    };
  const why = health.reason ? ` (${health.reason.code}: ${health.reason.message})` : '';
  return { server, kind: 'disconnected', message: `${STATE_TEXT[health.state]}${why}`, health };
}
