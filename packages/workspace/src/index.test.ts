import { describe, expect, it } from 'vitest';
import { declaredExports } from './export-names.test-helper.js';
import * as mod from './index.js';

// The composition root's surface, pinned so an API change is a visible diff in review.
const VALUES: readonly string[] = [
  'CONTROL_ERROR_STATUS',
  'controlError',
  'createAgentOpener',
  'createControlServer',
  'createWorkspaceAgents',
  'generateControlToken',
  'loadOrCreateToken',
  // the workspace, its egress engine, models, demo and run log
  'controlAuditFile',
  'egressAuditFile',
  'openWorkspace',
  'createWorkspaceEgress',
  'ADF_DEFAULT_POLICY',
  'compileWorkspacePolicy',
  'createAuditRouter',
  'createModelAgentOpener',
  'openModel',
  'DEMO_AGENT',
  'demoAnswer',
  'ensureDemoWorkspace',
  'readWorkspaceTrustedKeys',
  'workspaceLayout',
  'sampleComponent',
  'sampleManifest',
  'MAX_SANDBOX_RUNS',
  'appendSandboxRun',
  'createEgressCollector',
  'readSandboxRuns',
  'sandboxRunRecord',
  'sandboxRunsFile',
  'recordEgressPolicy',
  'recordedPolicyDocument',
  'checkSandboxPolicy',
];

const TYPES: readonly string[] = [
  'AgentConfigView',
  'AgentFileInfo',
  'AgentOpenerOptions',
  'AgentRuntimeHooks',
  'AgentSummary',
  'ApprovalTask',
  'ApprovalTaskStatus',
  'AuditLogKind',
  'AuditLogView',
  'AuditTimelineInput',
  'Awaitable',
  'ChainStatus',
  'ControlAgent',
  'ControlAgents',
  'ControlErrorBody',
  'ControlErrorCode',
  'ControlEvent',
  'ControlServer',
  'ControlServerOptions',
  'LoadedPluginView',
  'LoopTurn',
  'MeshWsServerOptions',
  'MessageView',
  'OpenedAgent',
  'PluginActionHooks',
  'PluginCallView',
  'PluginDecisionView',
  'PluginEgressView',
  'PolicyFileStore',
  'PolicyFileView',
  'PluginReport',
  'SandboxCheck',
  'SandboxControl',
  'SandboxEventPage',
  'SandboxLiveRun',
  'SandboxProblem',
  'SandboxRunEvent',
  'SandboxRunExit',
  'SandboxRunView',
  'SandboxStartInput',
  'ToolRow',
  'TriggerInput',
  'WorkspaceAgentsOptions',
  // the workspace, its egress engine, models, demo and run log
  'OpenWorkspaceOptions',
  'Workspace',
  'WorkspaceClientMode',
  'WorkspaceEgress',
  'WorkspaceEgressOptions',
  'WorkspaceEgressStatus',
  'CompiledWorkspacePolicy',
  'AuditRouter',
  'ModelAgentOpenerOptions',
  'WorkspaceLayout',
  'FinishedRun',
  'SandboxRunRecord',
];

describe('@trust/workspace public API', () => {
  it('exports exactly the pinned values at runtime', () => {
    expect(Object.keys(mod).sort()).toEqual([...VALUES].sort());
  });

  it('declares exactly the pinned values and types', () => {
    const declared = declaredExports(new URL('./index.ts', import.meta.url));
    expect(declared.values).toEqual([...VALUES].sort());
    expect(declared.types).toEqual([...TYPES].sort());
  });
});
