// `@trust/workspace`: the one composition root. A workspace on disk becomes running agents, plugins,
// sandboxes, MCP servers, one egress engine, the audit logs and the control server. Pinned by index.test.ts.

// the control server and what a host implements for it
export {
  CONTROL_ERROR_STATUS,
  controlError,
  createAgentOpener,
  createControlServer,
  createWorkspaceAgents,
  generateControlToken,
  loadOrCreateToken,
} from './control/index.js';
export type {
  AgentConfigView,
  AgentFileInfo,
  AgentOpenerOptions,
  AgentRuntimeHooks,
  AgentSummary,
  ApprovalTask,
  ApprovalTaskStatus,
  AuditLogKind,
  AuditLogView,
  AuditTimelineInput,
  Awaitable,
  ChainStatus,
  ControlAgent,
  ControlAgents,
  ControlErrorBody,
  ControlErrorCode,
  ControlEvent,
  ControlServer,
  ControlServerOptions,
  LoadedPluginView,
  LoopTurn,
  MeshWsServerOptions,
  MessageView,
  OpenedAgent,
  PluginActionHooks,
  PluginCallView,
  PluginDecisionView,
  PluginEgressView,
  PluginReport,
  PolicyFileStore,
  PolicyFileView,
  SandboxCheck,
  SandboxControl,
  SandboxEventPage,
  SandboxLiveRun,
  SandboxProblem,
  SandboxRunEvent,
  SandboxRunExit,
  SandboxRunView,
  SandboxStartInput,
  ToolRow,
  TriggerInput,
  WorkspaceAgentsOptions,
} from './control/index.js';

// the workspace: open a directory, run it
export { controlAuditFile, egressAuditFile, openWorkspace } from './open-workspace.js';
export type { OpenWorkspaceOptions, Workspace } from './open-workspace.js';

// the one egress engine and where its decisions go
export { createWorkspaceEgress } from './egress/workspace-egress.js';
export type {
  WorkspaceClientMode,
  WorkspaceEgress,
  WorkspaceEgressOptions,
  WorkspaceEgressStatus,
} from './egress/workspace-egress.js';
export { ADF_DEFAULT_POLICY, compileWorkspacePolicy } from './egress/policy-source.js';
export type { CompiledWorkspacePolicy } from './egress/policy-source.js';
export { createAuditRouter } from './egress/audit-router.js';
export type { AuditRouter } from './egress/audit-router.js';

// agents with the model their config names
export { createModelAgentOpener, openModel } from './model/agent-model.js';
export type { ModelAgentOpenerOptions } from './model/agent-model.js';

// the demo workspace and the sample plugin
export {
  DEMO_AGENT,
  demoAnswer,
  ensureDemoWorkspace,
  readWorkspaceTrustedKeys,
  workspaceLayout,
} from './demo/demo-workspace.js';
export type { WorkspaceLayout } from './demo/demo-workspace.js';
export { sampleComponent, sampleManifest } from './demo/sample-plugin.js';

// the sandbox run log (`trust sandbox` and the studio's runs)
export {
  MAX_SANDBOX_RUNS,
  appendSandboxRun,
  createEgressCollector,
  readSandboxRuns,
  sandboxRunRecord,
  sandboxRunsFile,
} from './sandbox-runs/sandbox-runs.js';
export type { FinishedRun, SandboxRunRecord } from './sandbox-runs/sandbox-runs.js';
export { recordEgressPolicy, recordedPolicyDocument } from './sandbox-runs/sandbox-runs-policy.js';
export { checkSandboxPolicy } from './sandbox-runs/sandbox-policy-check.js';
