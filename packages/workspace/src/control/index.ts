// The control server and what a host needs to implement its hooks
// (the agents registry, sandbox control, plugin actions): the typed control-error constructor whose
// codes the server answers with their HTTP status, and the views the API answers with.
export { createControlServer } from './control-server.js';
export type { ControlServer, ControlServerOptions } from './control-server.js';
export { CONTROL_ERROR_STATUS, controlError } from './control-error.js';
export type { ControlErrorBody, ControlErrorCode } from './control-error.js';
export { generateControlToken, loadOrCreateToken } from './control-token.js';
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
export type { AgentRuntimeHooks, OpenedAgent, WorkspaceAgentsOptions } from './workspace-agents.js';
export { createAgentOpener } from './agent-runtime-hooks.js';
export type { AgentOpenerOptions } from './agent-runtime-hooks.js';
export type { MeshWsServerOptions } from './mesh-ws-server.js';
export type {
  LoadedPluginView,
  PluginActionHooks,
  PluginCallView,
  PluginDecisionView,
  PluginEgressView,
} from './plugin-routes.js';
export type { PolicyFileStore, PolicyFileView } from './policy-file-routes.js';
export type {
  SandboxCheck,
  SandboxControl,
  SandboxEventPage,
  SandboxLiveRun,
  SandboxProblem,
  SandboxRunEvent,
  SandboxRunExit,
  SandboxStartInput,
} from './sandbox-routes.js';
