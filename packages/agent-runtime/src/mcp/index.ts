// `@trust/agent-runtime/mcp`: MCP servers connected through the OS sandbox (stdio) or the egress client (HTTP).
export { connectMcpServer } from './mcp-connector.js';
export type { ConnectMcpOptions, McpConnection } from './mcp-connector.js';
export type {
  McpPlacement,
  McpResourceLimits,
  McpSandboxPolicy,
  McpServerConfig,
  McpSessionOptions,
} from './mcp-session.js';
export { BLOCKED_MCP_ENV, BLOCKED_MCP_ENV_PREFIXES, evaluateMcpEnvVar, filterMcpEnv, mcpToolName } from './mcp-env.js';
export { parseMcpToolName } from '../gate/mcp-name.js';
export { SandboxStdioTransport } from './sandbox-stdio-transport.js';
export type { StdioSandbox, StdioTransportOptions } from './sandbox-stdio-transport.js';
export { createEgressMcpTransport, egressFetchLike } from './egress-http-transport.js';
export type { McpHttpClient } from './egress-http-transport.js';
export { DEFAULT_MCP_MAX_LINE_BYTES, createMcpLineReader } from './mcp-line-reader.js';
export type { McpLineReader, McpLineReaderOptions } from './mcp-line-reader.js';
export { createNonEvaluatingValidator, listMcpTools } from './mcp-tool-list.js';
export type { McpToolInfo, McpToolListLimits } from './mcp-tool-list.js';
export { startMcpService } from './mcp-service.js';
export type {
  McpHealthState,
  McpRestartPolicy,
  McpService,
  McpServiceHealth,
  McpServiceOptions,
  McpServiceTuning,
} from './mcp-service.js';
export { createMcpServers } from './mcp-servers.js';
export type { McpServers, McpServersOptions, McpStarted } from './mcp-servers.js';
export { mcpLiveState } from './mcp-live-state.js';
export type { McpRefusedTool, McpServerHealth, McpServerLiveState, McpToolStatus } from './mcp-live-state.js';
export { describeMcpServers } from './mcp-describe.js';
export type { McpServerReport } from './mcp-describe.js';
