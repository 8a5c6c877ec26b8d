// `@trust/agent-runtime/gate`: the one gate every tool call passes, its registry, access matrix and approvals.
export {
  CODE_METHODS,
  CODE_ONLY_METHODS,
  evaluateCodeMethod,
  evaluateCodeOnlyForModel,
  evaluateToolAccess,
  toolFlags,
} from './access-matrix.js';
export type { ToolAccess, ToolFlags } from './access-matrix.js';
export type { ApprovalOutcome, ApprovalRequest, ApprovalResponse, Approver } from './approvals.js';
export { escapeForTerminal } from './escape.js';
export { validateJsonSchema } from './json-schema.js';
export { TOOL_ORIGINS, createToolRegistry } from './tool-definition.js';
export type { JsonSchema, ToolContext, ToolDefinition, ToolOrigin, ToolRegistry } from './tool-definition.js';
export { createToolGate } from './tool-gate.js';
export type { ToolCallOptions, ToolGate, ToolGateOptions, VisibleTool } from './tool-gate.js';
