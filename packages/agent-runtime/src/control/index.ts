export { createControlServer } from './control-server.js';
export type { ControlServer, ControlServerOptions } from './control-server.js';
export { CONTROL_ERROR_STATUS, controlError } from './control-error.js';
export type { ControlErrorBody, ControlErrorCode } from './control-error.js';
export { evaluateControlRequest, createGuardSettings } from './request-guard.js';
export type { GuardQuery, GuardSettings } from './request-guard.js';
export { evaluateBearer, generateControlToken, loadOrCreateToken } from './control-token.js';
export { evaluateRelativePath } from './safe-path.js';
export { buildCsp, CSP_REPORT_PATH } from './security-headers.js';
export type {
  AgentConfigView,
  AgentFileInfo,
  AgentSummary,
  ApprovalTask,
  ApprovalTaskStatus,
  Awaitable,
  ChainStatus,
  ControlAgent,
  ControlAgents,
  ControlEvent,
  LoopTurn,
  MessageView,
  PluginReport,
  SandboxRunView,
  ToolRow,
  TriggerInput,
} from './agent-registry.js';
export type { AuditLogKind, AuditLogView, AuditTimelineInput } from './audit-timeline.js';
export { createWorkspaceAgents } from './workspace-agents.js';
export type { AgentRuntimeHooks, WorkspaceAgentsOptions } from './workspace-agents.js';
export { createAgentOpener } from './agent-runtime-hooks.js';
export type { AgentOpenerOptions } from './agent-runtime-hooks.js';
export type { OpenedAgent } from './workspace-agents.js';
export type { MeshWsServerOptions } from './mesh-ws-server.js';
