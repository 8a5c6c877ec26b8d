import type { AgentEgress, AgentMcpOptions } from '@trust/agent-runtime';
import type { AuditSink, Principal } from '@trust/core';
import type { WorkspaceEgress } from './workspace-egress.js';

/**
 * The sys_fetch and ws_* clients of one agent: both run the workspace engine, so the owner's
 * policy, the address guard (control port protected) and the audit apply to every call; the
 * principal is the one the agent's gate names (its DID, or its id while it has none).
 *
 * @example
 * createAgentOpener({ provider, egress: () => agentEgressOf(engine) });
 */
export function agentEgressOf(engine: WorkspaceEgress): AgentEgress {
  return {
    fetch: { default: engine.client('default'), allowLocal: engine.client('allow-local') },
    ws: engine.client('default') as unknown as NonNullable<AgentEgress['ws']>,
  };
}

/** The principal of one MCP server of one agent: `mcp:<agent>/<server>`, filed in that agent's log. */
export function mcpPrincipal(agent: string, server: string): Principal {
  return Object.freeze({ kind: 'plugin' as const, id: `mcp:${agent}/${server}`, agent });
}

/**
 * The MCP wiring of one agent under the workspace engine: `url` servers reach their endpoint
 * through the engine's client with the principal `mcp:<agent>/<server>`; stdio servers that are
 * granted `http`/`tcp`/`udp` get the engine's policy and guard in their sandbox, each decision
 * recorded in the agent's log under `mcp:<agent>/stdio` (the sandbox is not told the server's name).
 *
 * @example
 * mcp: (id) => mcpUnderEgress(base(id), engine, id, router.sink)
 */
export function mcpUnderEgress(
  base: AgentMcpOptions,
  engine: WorkspaceEgress,
  agent: string,
  audit: AuditSink,
  createSandbox: (
    policy: unknown,
    extra: Record<string, unknown>,
  ) => ReturnType<NonNullable<AgentMcpOptions['createSandbox']>>,
): AgentMcpOptions {
  const client = engine.client('default');
  const http: NonNullable<AgentMcpOptions['http']> = {
    fetch: (url, init, call) => {
      // The connector names the server (`mcp:<server>`); the workspace adds whose server it is.
      const server = call.principal.id.startsWith('mcp:') ? call.principal.id.slice(4) : call.principal.id;
      return client.fetch(url, init as never, { ...call, principal: mcpPrincipal(agent, server) }) as never;
    },
  };
  const stdio = mcpPrincipal(agent, 'stdio');
  const sandboxAudit: AuditSink = { record: (input) => audit.record({ ...input, principal: stdio }) };
  return {
    ...base,
    http,
    createSandbox: (policy) =>
      createSandbox(policy, { egress: engine.policy, guard: engine.guard('default'), audit: sandboxAudit }),
  };
}
