export {};

// control API (part 3/3)
export {
  CONTROL_ERROR_STATUS,
  CSP_REPORT_PATH,
  buildCsp,
  controlError,
  createControlServer,
  createGuardSettings,
  evaluateBearer,
  evaluateControlRequest,
  evaluateRelativePath,
  generateControlToken,
  loadOrCreateToken,
} from './control/index.js';
export type {
  AgentConfigView,
  AgentFileInfo,
  AgentSummary,
  ApprovalTask,
  Awaitable,
  ChainStatus,
  ControlAgent,
  ControlAgents,
  ControlErrorBody,
  ControlErrorCode,
  ControlEvent,
  ControlServer,
  ControlServerOptions,
  GuardQuery,
  GuardSettings,
  LoopTurn,
  MessageView,
  PluginReport,
  SandboxRunView,
  ToolRow,
  TriggerInput,
} from './control/index.js';
