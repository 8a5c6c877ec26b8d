import { describe, expect, it } from 'vitest';
import * as mod from './index.js';

// The public API, pinned by part, so an API change is a visible diff in review.
const PART1: readonly string[] = [
      'ADF_READABLE_TABLES', 'ADF_SCHEMA_VERSION', 'ADF_SECRET_TABLES', 'AgentIdentity', 'BUILT_IN_TOOLS', 'CODE_EXCLUDED_TOOLS',
      'CODE_EXECUTION_FLAGS', 'CODE_METHODS', 'DEFAULT_LOCKED_PATHS', 'GUARD_PATHS', 'KEY_MATERIAL', 'REDACTED', 'RUNTIME_META_KEYS',
      'SCRYPT_PARAMS', 'TOOL_ORIGINS', 'TRIGGER_TYPES', 'agentConfigSchema', 'checkAgentConfig', 'claimSharedAdf',
      'computeAdfContentHash', 'createAdf', 'createAdfAuditSink', 'createAdfReviewStore', 'createCodeIdentityAccess',
      'createDbExecuteTool', 'createDbQueryTool', 'createEnvelopeKeyPair', 'createIdentity', 'createIdentityTools',
      'createSqlGuard', 'createToolGate', 'createToolRegistry', 'defaultAgentConfig', 'didKeyFromPublicKey',
      'effectiveToolDeclarations', 'envelopeKeyFromPkcs8', 'escapeForTerminal', 'evaluateCodeMethod', 'evaluateToolAccess',
      'loadIdentity', 'normalizeVfsPath', 'openAdf', 'openEnvelope', 'openLegacyPasswordRow', 'parseAgentConfig',
      'planConfigUpdate', 'provisionIdentity', 'publicKeyFromDidKey', 'readSecret', 'redactConfig', 'reviewKeyOf',
      'sealEnvelope', 'signAdfContent', 'signWithIdentity', 'storeSecret', 'sysGetConfigTool', 'sysUpdateConfigTool',
      'toolDeclarationSchema', 'toolFlags', 'validateJsonSchema', 'verifyDidSignature',
    ];
const CONTROL: readonly string[] = [
      'CONTROL_ERROR_STATUS',
      'CSP_REPORT_PATH',
      'buildCsp',
      'controlError',
      'createAgentOpener',
      'createControlServer',
      'createGuardSettings',
      'createWorkspaceAgents',
      'evaluateBearer',
      'evaluateControlRequest',
      'evaluateRelativePath',
      'generateControlToken',
      'loadOrCreateToken',
    ];
const EXECUTION: readonly string[] = [
      'ANTHROPIC_VERSION', 'CODE_TIMEOUT_CEILING_MS', 'DEFAULT_REJECTION_CODES', 'EXIT_DENIED', 'EXIT_NOT_FOUND', 'EXIT_REJECTED',
      'FETCH_BODY_CAP_BYTES', 'GATE_REJECTION_CODES', 'MIN_TIMER_INTERVAL_MS', 'SCRIPTED_LABEL', 'createAnthropicProvider', 'createAskTool',
      'createCodeRunner', 'createCodeSandbox', 'createDefaultCommands', 'createExecutionTools', 'createOpenAIProvider', 'createSayTool',
      'createScriptedProvider', 'createSetTimerTool', 'createShell', 'createShellGate', 'createShellTool', 'createSysCodeTool',
      'createSysFetchTool', 'createSysLambdaTool', 'createWsTools', 'fsDeleteTool', 'fsListTool', 'fsReadTool', 'fsWriteTool',
      'isGuestIdentifier', 'msgListTool', 'msgReadTool', 'msgSendStubTool', 'openAgent', 'parseLambdaRef', 'parseSse', 'runMiddlewareChain', 'sysDeleteMetaTool',
      'sysDeleteTimerTool', 'sysGetMetaTool', 'sysListTimersTool', 'sysSetMetaTool',
      'BLOCKED_MCP_ENV', 'BLOCKED_MCP_ENV_PREFIXES', 'SandboxStdioTransport', 'connectMcpServer', 'evaluateMcpEnvVar', 'filterMcpEnv', 'mcpToolName',
      'createTimerClock', 'nodeTimerScheduler', 'observeGate', 'createEgressMcpTransport', 'egressFetchLike',
      'createTypeStripper', 'isTypeScriptPath',
      'CODE_TERMINATE_GRACE_MS', 'CODE_WORKER_HEAP', 'DEFAULT_MAX_NESTED_RUNS', 'MAX_BRIDGE_DEPTH', 'MAX_CODE_NESTING_DEPTH', 'defaultCodeWorkers',
      'CODE_ONLY_METHODS', 'evaluateCodeOnlyForModel', 'DEFAULT_CODE_METHOD_QUOTAS', 'LOOP_NOTE_ROLE', 'MAX_LOOP_NOTE_CHARS', 'MAX_MODEL_INVOKE_TOKENS',
      'createModelInvokeTool', 'createTaskResolveTool', 'loopInjectTool', 'nextCronWake', 'parseCronSchedule',
    ];
const TRIGGERS: readonly string[] = [
      'DEFAULT_TRIGGER_LIMITS', 'RESERVED_TRIGGER_SOURCES', 'TRIGGER_FILTER_KEYS', 'createTriggerDispatcher', 'createTriggerGuard',
      'evaluateTriggerMatch', 'externalEvent', 'matchesFilterValue', 'triggerEventOf', 'MAX_TRIGGER_BATCH', 'triggerTimingOf',
    ];
const MESSAGING: readonly string[] = [
      'DEFAULT_INGRESS_SETTINGS', 'ENCRYPTED_CONTENT_TYPE', 'MAX_MESSAGE_BYTES', 'MESH_INBOX_PREFIX', 'MESSAGE_VERSION', 'RESERVED_ALIASES',
      'TRUST_STAMPS', 'composeMessage', 'createAgentMessaging', 'createIngress', 'createLocalMesh', 'createReplayGuard', 'decryptPayload',
      'deliverMessage', 'encryptPayload', 'handleMeshRequest', 'identitySeed', 'ingressSettingsFromConfig', 'messageSchema', 'stripTrustStamps',
      'DEFAULT_MESH_WS_LIMITS', 'MESH_WS_CLOSE', 'MESH_WS_PREFIX', 'MESH_WS_VERSION', 'evaluateMeshWsAuth', 'meshWsAuthBytes', 'openMeshWsSession', 'signMeshWsAuth',
    ];

describe('@trust/agent-runtime public API', () => {
  it.each([
    ['state and decisions (part 1/3)', PART1],
    ['execution (part 2/3)', EXECUTION],
    ['triggers (part 2/3)', TRIGGERS],
    ['control API (part 3/3)', CONTROL],
    ['messaging (part 3/3)', MESSAGING],
  ])('exports %s', (_part, names) => {
    expect(Object.keys(mod).filter((k) => names.includes(k)).sort()).toEqual([...names].sort());
  });

  it('exports nothing beyond the pinned lists', () => {
    const pinned = new Set([...PART1, ...EXECUTION, ...TRIGGERS, ...CONTROL, ...MESSAGING]);
    expect(Object.keys(mod).filter((k) => !pinned.has(k)).sort()).toEqual([]);
  });
});
