export {
  CODE_EXECUTION_FLAGS,
  TRIGGER_TYPES,
  agentConfigSchema,
  toolDeclarationSchema,
} from './agent-config-schema.js';
export type { AgentConfig, ToolDeclaration } from './agent-config-schema.js';
export { checkAgentConfig, defaultAgentConfig, effectiveToolDeclarations, parseAgentConfig } from './agent-config.js';
export { BUILT_IN_TOOLS, CODE_EXCLUDED_TOOLS } from './built-in-tools.js';
export type { BuiltInTool } from './built-in-tools.js';
export { DEFAULT_LOCKED_PATHS, GUARD_PATHS, planConfigUpdate } from './config-update.js';
export type { ConfigUpdatePlan, ConfigUpdateRequest } from './config-update.js';
export { REDACTED, redactConfig } from './redact-config.js';
export { sysGetConfigTool, sysUpdateConfigTool } from './config-tools.js';
