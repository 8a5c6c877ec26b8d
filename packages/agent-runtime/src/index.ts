export {};

// state and decisions (part 1/3): .adf file, config, tool gate, SQL guard, identity, audit
export { ADF_READABLE_TABLES, ADF_SCHEMA_VERSION, ADF_SECRET_TABLES, RUNTIME_META_KEYS, createAdf, normalizeVfsPath, openAdf } from './adf/index.js';
export type {
  AdfFile, AdfFileRecord, AdfFiles, AdfLogs, AdfLoop, AdfMail, AdfMeta, AdfTask, AdfTasks, AdfTimers, CreateAdfOptions,
  AdfEvent, AdfEvents, FileProtection, FlagSetter, LogRow, LoopEntry, MailInput, MailRow, MetaProtection, OpenAdfOptions, TaskStatus, TimerRow,
  AdfWriters, PreemptibleWriter,
} from './adf/index.js';
export { createAdfAuditSink } from './audit/index.js';
export type { AdfAuditSink } from './audit/index.js';
export {
  BUILT_IN_TOOLS, CODE_EXCLUDED_TOOLS, CODE_EXECUTION_FLAGS, DEFAULT_LOCKED_PATHS, GUARD_PATHS, REDACTED, TRIGGER_TYPES,
  agentConfigSchema, checkAgentConfig, defaultAgentConfig, effectiveToolDeclarations, parseAgentConfig, planConfigUpdate,
  redactConfig, sysGetConfigTool, sysUpdateConfigTool, toolDeclarationSchema,
} from './config/index.js';
export type { AgentConfig, BuiltInTool, ConfigUpdatePlan, ConfigUpdateRequest, ToolDeclaration } from './config/index.js';
export {
  CODE_METHODS, CODE_ONLY_METHODS, TOOL_ORIGINS, createToolGate, createToolRegistry, escapeForTerminal, evaluateCodeMethod,
  evaluateCodeOnlyForModel, evaluateToolAccess,
  toolFlags, validateJsonSchema,
} from './gate/index.js';
export type {
  ApprovalOutcome, ApprovalRequest, ApprovalResponse, Approver, JsonSchema, ToolAccess, ToolCallOptions, ToolContext,
  ToolDefinition, ToolFlags, ToolGate, ToolGateOptions, ToolOrigin, ToolRegistry, VisibleTool,
} from './gate/index.js';
export { createDbExecuteTool, createDbQueryTool, createSqlGuard } from './sql/index.js';
export type { ExecuteResult, QueryResult, SqlGuard, SqlGuardOptions, TableProtection } from './sql/index.js';
export {
  AgentIdentity, KEY_MATERIAL, SCRYPT_PARAMS, claimSharedAdf, computeAdfContentHash, createAdfReviewStore, createCodeIdentityAccess,
  createEnvelopeKeyPair, createIdentity, createIdentityTools, didKeyFromPublicKey, envelopeKeyFromPkcs8, loadIdentity,
  openEnvelope, openLegacyPasswordRow, provisionIdentity, publicKeyFromDidKey, readSecret, reviewKeyOf, sealEnvelope,
  signAdfContent, signWithIdentity, storeSecret, verifyDidSignature,
} from './identity/index.js';
export type { AdfReviewKey, AdfReviewStore, Envelope, EnvelopeKeyPair, SealTo } from './identity/index.js';

// control API (part 3/3)
export {
  CONTROL_ERROR_STATUS,
  CSP_REPORT_PATH,
  buildCsp,
  controlError,
  createAgentOpener,
  createControlServer,
  createGuardSettings,
  createWorkspaceAgents,
  evaluateBearer,
  evaluateControlRequest,
  evaluateRelativePath,
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
  GuardQuery,
  GuardSettings,
  LoopTurn,
  MeshWsServerOptions,
  MessageView,
  OpenedAgent,
  PluginReport,
  SandboxRunView,
  ToolRow,
  TriggerInput,
  WorkspaceAgentsOptions,
} from './control/index.js';

// messaging (part 3/3): signed messages, one ingress path, delivery
export {
  DEFAULT_INGRESS_SETTINGS, ENCRYPTED_CONTENT_TYPE, MAX_MESSAGE_BYTES, MESH_INBOX_PREFIX, MESSAGE_VERSION, RESERVED_ALIASES,
  TRUST_STAMPS, composeMessage, createAgentMessaging, createIngress, createLocalMesh, createReplayGuard, decryptPayload, deliverMessage,
  encryptPayload, handleMeshRequest, identitySeed, ingressSettingsFromConfig, messageSchema, stripTrustStamps,
} from './messaging/index.js';
export type {
  AgentMessage, AgentMessaging, AgentMessagingOptions, ComposeOptions, DeliveryFetch, DeliveryOptions, DeliveryResult, DidVerifier, InboxMiddleware, InboxRecord,
  IngestFunction, IngressContext, IngressOptions, IngressResult, IngressSettings, LocalMesh, MessageAttachment, MessagePayload,
  MessageSigner, ReplayGuard, SendRequest, TrustStamp,
} from './messaging/index.js';
export {
  DEFAULT_MESH_WS_LIMITS, MESH_WS_CLOSE, MESH_WS_PREFIX, MESH_WS_VERSION, evaluateMeshWsAuth, meshWsAuthBytes, openMeshWsSession, signMeshWsAuth,
} from './messaging/index.js';
export type {
  AckFrame, LocalMeshEntryOptions, MeshSocket, MeshWsClientOptions, MeshWsClientSession, MeshWsConnector, MeshWsLimits,
} from './messaging/index.js';

// execution (part 2/3): agent loop, model providers, code sandbox, virtual shell, built-in tools, MCP
export {
  CODE_TERMINATE_GRACE_MS, CODE_TIMEOUT_CEILING_MS, CODE_WORKER_HEAP, DEFAULT_CODE_METHOD_QUOTAS, DEFAULT_MAX_NESTED_RUNS, MAX_BRIDGE_DEPTH, MAX_CODE_NESTING_DEPTH, createCodeRunner, createCodeSandbox, defaultCodeWorkers, createTypeStripper, isGuestIdentifier, isTypeScriptPath, parseLambdaRef, runMiddlewareChain,
} from './code/index.js';
export type {
  BridgeHandler, CodeErrorCode, CodeLanguage, CodeWorkerStats, CodeResult, CodeRunContext, CodeRunOptions, CodeRunner, CodeRunnerOptions, CodeSandbox, CodeSandboxOptions,
  GuestEntry, LambdaRef, MiddlewareOutcome, TypeStripper, TypeStripperOptions, TypeStripResult,
} from './code/index.js';
export { DEFAULT_REJECTION_CODES, EXIT_DENIED, EXIT_NOT_FOUND, EXIT_REJECTED, createDefaultCommands, createShell } from './shell/index.js';
export type { CommandContext, Shell, ShellCommand, ShellGate, ShellOptions, ShellResult, ShellSink, ShellTraceEntry } from './shell/index.js';
export { ANTHROPIC_VERSION, SCRIPTED_LABEL, createAnthropicProvider, createOpenAIProvider, createScriptedProvider, parseSse } from './providers/index.js';
export type {
  ContentBlock, HttpProviderOptions, ModelMessage, ModelProvider, ModelRequest, ModelResponse, ModelTool, OutputBlock, ProviderHttpClient,
  ProviderHttpResponse, RetryOptions, ScriptedProvider, ScriptedStep, SseEvent, StopReason, TextBlock, ToolResultBlock, ToolUseBlock, Usage,
} from './providers/index.js';
export {
  FETCH_BODY_CAP_BYTES, GATE_REJECTION_CODES, MIN_TIMER_INTERVAL_MS, createAskTool, createExecutionTools, createSayTool, createSetTimerTool,
  createShellGate, createShellTool, createSysCodeTool, createSysFetchTool, createSysLambdaTool, createWsTools, fsDeleteTool, fsListTool,
  fsReadTool, fsWriteTool, msgListTool, msgReadTool, msgSendStubTool, sysDeleteMetaTool, sysDeleteTimerTool, sysGetMetaTool, sysListTimersTool, sysSetMetaTool,
  LOOP_NOTE_ROLE, MAX_LOOP_NOTE_CHARS, MAX_MODEL_INVOKE_TOKENS, createModelInvokeTool, createTaskResolveTool, loopInjectTool,
  nextCronWake, parseCronSchedule,
} from './tools/index.js';
export type { BuiltInToolDeps, ChatHooks, CronSchedule, FetchClient, FetchClients, ModelInvokeDeps, WsClient, WsRegistry } from './tools/index.js';
export { createTimerClock, nodeTimerScheduler, observeGate, openAgent } from './loop/index.js';
export type {
  Agent, AgentEgress, AgentEvent, AgentMcpOptions, AgentState, ObservedToolCall, OpenAgentOptions, TimerClock, TimerClockOptions, TimerFiring,
  TimerScheduler, TurnOutcome,
} from './loop/index.js';

// triggers (part 2/3): events raised where they happen, matched against config.triggers and run
export {
  DEFAULT_TRIGGER_LIMITS, RESERVED_TRIGGER_SOURCES, TRIGGER_FILTER_KEYS, createTriggerDispatcher, createTriggerGuard, evaluateTriggerMatch,
  externalEvent, matchesFilterValue, triggerEventOf, MAX_TRIGGER_BATCH, triggerTimingOf,
} from './triggers/index.js';
export type {
  TriggerCause, TriggerConfig, TriggerDispatcher, TriggerDispatcherOptions, TriggerEvent, TriggerFiring, TriggerGuard, TriggerLimits,
  TriggerOutcome, TriggerTiming, TriggerType, TriggerWake,
} from './triggers/index.js';
export {
  BLOCKED_MCP_ENV, BLOCKED_MCP_ENV_PREFIXES, SandboxStdioTransport, connectMcpServer, createEgressMcpTransport, egressFetchLike, evaluateMcpEnvVar,
  filterMcpEnv, mcpToolName,
} from './mcp/index.js';
export type { ConnectMcpOptions, McpConnection, McpHttpClient, McpPlacement, McpSandboxPolicy, McpServerConfig, StdioSandbox } from './mcp/index.js';
