// The surface an embedder needs: open and create agents, model providers,
// messaging, and the documented tool and config types. The building blocks advanced hosts compose
// themselves come from the subpaths (`@trust/agent-runtime/adf`, `/gate`, `/tools`, `/shell`, `/sql`,
// `/code`, `/host`, `/mcp`, `/triggers`, `/messaging`, `/identity`); everything else is internal. Pinned by
// index.test.ts and subpath-exports.test.ts.

// agents: the .adf file and the loop
export { ADF_SCHEMA_VERSION, createAdf, openAdf, withAdfSnapshot } from './adf/index.js';
export type { AdfFile, CreateAdfOptions, OpenAdfOptions } from './adf/index.js';
export { openAgent } from './loop/index.js';
export type {
  Agent,
  AgentEgress,
  AgentEvent,
  AgentMcpOptions,
  AgentState,
  OpenAgentOptions,
  TimerScheduler,
  TurnOutcome,
} from './loop/index.js';
export type { TriggerFiring, TriggerLimits } from './triggers/index.js';
export {
  AgentIdentity,
  acceptAdfReview,
  createAdfReviewStore,
  createIdentity,
  createIdentityKeys,
  describeAdfReview,
  diffAdfReviews,
  loadIdentity,
  loadOrCreateIdentityKeys,
  provisionAgentIdentity,
  reviewKeyOf,
  signAdfContent,
} from './identity/index.js';
export type { AcceptAdfReviewOptions, AdfReviewChange, AdfReviewSurface } from './identity/index.js';
export type { AdfReviewKey, AdfReviewStore, IdentityKeys } from './identity/index.js';

// config
export {
  BUILT_IN_TOOLS,
  DEFAULT_LOCKED_PATHS,
  agentConfigSchema,
  checkAgentConfig,
  defaultAgentConfig,
  effectiveToolDeclarations,
  parseAgentConfig,
  redactConfig,
} from './config/index.js';
export type { AgentConfig, BuiltInTool, ToolDeclaration } from './config/index.js';

// tools: the types a host's own tools and approver implement
export type {
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalResponse,
  Approver,
  JsonSchema,
  ToolCallOptions,
  ToolContext,
  ToolDefinition,
  ToolOrigin,
} from './gate/index.js';

// model providers
export {
  SCRIPTED_LABEL,
  createAnthropicProvider,
  createOpenAIProvider,
  createScriptedProvider,
} from './providers/index.js';
export type {
  ContentBlock,
  HttpProviderOptions,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelTool,
  OutputBlock,
  ProviderHttpClient,
  ProviderHttpResponse,
  RetryOptions,
  ScriptedProvider,
  ScriptedStep,
  StopReason,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from './providers/index.js';

// messaging
export {
  MESSAGE_VERSION,
  composeMessage,
  createAgentMessaging,
  createLocalMesh,
  deliverMessage,
  openMeshWsSession,
} from './messaging/index.js';
export type {
  AgentMessage,
  AgentMessaging,
  AgentMessagingOptions,
  ComposeOptions,
  DeliveryOptions,
  DeliveryResult,
  LocalMesh,
  MeshWsClientOptions,
  MeshWsClientSession,
  SendRequest,
} from './messaging/index.js';
