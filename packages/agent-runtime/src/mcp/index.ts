// `@trust/agent-runtime/mcp`: MCP servers connected through the OS sandbox (stdio) or the egress client (HTTP).
export { connectMcpServer } from './mcp-connector.js';
export type {
  ConnectMcpOptions,
  McpConnection,
  McpPlacement,
  McpSandboxPolicy,
  McpServerConfig,
} from './mcp-connector.js';
export { BLOCKED_MCP_ENV, BLOCKED_MCP_ENV_PREFIXES, evaluateMcpEnvVar, filterMcpEnv, mcpToolName } from './mcp-env.js';
export { SandboxStdioTransport } from './sandbox-stdio-transport.js';
export type { StdioSandbox } from './sandbox-stdio-transport.js';
export { createEgressMcpTransport, egressFetchLike } from './egress-http-transport.js';
export type { McpHttpClient } from './egress-http-transport.js';
export type { McpServerLiveState } from './mcp-live-state.js';
