import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import tsup from '../tsup.config.js';
import { declaredExports } from './export-names.test-helper.js';
import * as adf from './adf/index.js';
import * as code from './code/index.js';
import * as gate from './gate/index.js';
import * as host from './host/index.js';
import * as identity from './identity/index.js';
import * as mcp from './mcp/index.js';
import * as messaging from './messaging/index.js';
import * as shell from './shell/index.js';
import * as sql from './sql/index.js';
import * as tools from './tools/index.js';
import * as triggers from './triggers/index.js';

// Each subpath export (`@trust/agent-runtime/<name>`) is the building-block surface of one area,
// pinned here as the root's is in index.test.ts: an API change is a visible diff in review.
interface Pinned {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

const SUBPATHS: Readonly<Record<string, Pinned>> = {
  adf: {
    values: [
      'ADF_READABLE_TABLES',
      'ADF_SCHEMA_VERSION',
      'ADF_SECRET_TABLES',
      'RUNTIME_META_KEYS',
      'createAdf',
      'normalizeVfsPath',
      'openAdf',
    ],
    types: [
      'AdfAuditSink',
      'AdfEvent',
      'AdfEvents',
      'AdfFile',
      'AdfFileRecord',
      'AdfFiles',
      'AdfLogs',
      'AdfLoop',
      'AdfMail',
      'AdfMeta',
      'AdfTask',
      'AdfTasks',
      'AdfTimers',
      'CreateAdfOptions',
      'FileProtection',
      'FlagSetter',
      'LogRow',
      'LoopEntry',
      'MailInput',
      'MailRow',
      'MetaProtection',
      'OpenAdfOptions',
      'TaskStatus',
      'TimerRow',
    ],
  },
  code: {
    values: [
      'CODE_TERMINATE_GRACE_MS',
      'CODE_TIMEOUT_CEILING_MS',
      'CODE_WORKER_HEAP',
      'DEFAULT_CODE_METHOD_QUOTAS',
      'DEFAULT_MAX_NESTED_RUNS',
      'MAX_BRIDGE_DEPTH',
      'MAX_CODE_NESTING_DEPTH',
      'createCodeRunner',
      'createCodeSandbox',
      'createTypeStripper',
      'defaultCodeWorkers',
      'isGuestIdentifier',
      'isTypeScriptPath',
      'parseLambdaRef',
      'runMiddlewareChain',
    ],
    types: [
      'BridgeHandler',
      'CodeErrorCode',
      'CodeLanguage',
      'CodeResult',
      'CodeRunContext',
      'CodeRunOptions',
      'CodeRunner',
      'CodeRunnerOptions',
      'CodeSandbox',
      'CodeSandboxOptions',
      'CodeWorkerStats',
      'GuestEntry',
      'LambdaRef',
      'MiddlewareOutcome',
      'TypeStripResult',
      'TypeStripper',
      'TypeStripperOptions',
    ],
  },
  gate: {
    values: [
      'CODE_METHODS',
      'CODE_ONLY_METHODS',
      'TOOL_ORIGINS',
      'createToolGate',
      'createToolRegistry',
      'escapeForTerminal',
      'evaluateCodeMethod',
      'evaluateCodeOnlyForModel',
      'evaluateToolAccess',
      'toolFlags',
      'validateJsonSchema',
    ],
    types: [
      'ApprovalOutcome',
      'ApprovalRequest',
      'ApprovalResponse',
      'Approver',
      'JsonSchema',
      'ToolAccess',
      'ToolCallOptions',
      'ToolContext',
      'ToolDefinition',
      'ToolFlags',
      'ToolGate',
      'ToolGateOptions',
      'ToolOrigin',
      'ToolRegistry',
      'VisibleTool',
    ],
  },
  host: {
    values: [
      'GUARD_PATHS',
      'answerAndDrain',
      'cloneConfig',
      'createMeshWsSession',
      'envelopeSigningBytes',
      'evaluateTriggerSource',
      'formatLoopNote',
      'meshWsLimitsSchema',
      'triggerLimitsSchema',
    ],
    types: ['MeshWsSession', 'MeshWsSessionOptions'],
  },
  identity: {
    values: [
      'AgentIdentity',
      'claimSharedAdf',
      'computeAdfContentHash',
      'createAdfReviewStore',
      'createEnvelopeKeyPair',
      'createIdentity',
      'createIdentityTools',
      'didKeyFromPublicKey',
      'envelopeKeyFromPkcs8',
      'loadIdentity',
      'openEnvelope',
      'provisionIdentity',
      'publicKeyFromDidKey',
      'readSecret',
      'reviewKeyOf',
      'sealEnvelope',
      'signAdfContent',
      'signWithIdentity',
      'storeSecret',
      'verifyDidSignature',
    ],
    types: ['AdfReviewKey', 'AdfReviewStore', 'Envelope', 'EnvelopeKeyPair', 'SealTo'],
  },
  mcp: {
    values: [
      'BLOCKED_MCP_ENV',
      'BLOCKED_MCP_ENV_PREFIXES',
      'SandboxStdioTransport',
      'connectMcpServer',
      'createEgressMcpTransport',
      'egressFetchLike',
      'evaluateMcpEnvVar',
      'filterMcpEnv',
      'mcpToolName',
    ],
    types: [
      'ConnectMcpOptions',
      'McpConnection',
      'McpHttpClient',
      'McpPlacement',
      'McpSandboxPolicy',
      'McpServerConfig',
      'McpServerLiveState',
      'StdioSandbox',
    ],
  },
  messaging: {
    values: [
      'DEFAULT_INGRESS_SETTINGS',
      'DEFAULT_MESH_WS_LIMITS',
      'ENCRYPTED_CONTENT_TYPE',
      'MAX_MESSAGE_BYTES',
      'MESH_INBOX_PREFIX',
      'MESH_WS_CLOSE',
      'MESH_WS_PREFIX',
      'MESH_WS_VERSION',
      'MESSAGE_VERSION',
      'RESERVED_ALIASES',
      'TRUST_STAMPS',
      'composeMessage',
      'createAgentMessaging',
      'createIngress',
      'createLocalMesh',
      'createReplayGuard',
      'decryptPayload',
      'deliverMessage',
      'encryptPayload',
      'evaluateMeshWsAuth',
      'handleMeshRequest',
      'ingressSettingsFromConfig',
      'messageSchema',
      'openMeshWsSession',
      'signMeshWsAuth',
      'stripTrustStamps',
    ],
    types: [
      'AckFrame',
      'AgentMessage',
      'AgentMessaging',
      'AgentMessagingOptions',
      'ComposeOptions',
      'DeliveryFetch',
      'DeliveryOptions',
      'DeliveryResult',
      'DidVerifier',
      'InboxMiddleware',
      'InboxRecord',
      'IngestFunction',
      'IngressContext',
      'IngressOptions',
      'IngressResult',
      'IngressSettings',
      'LocalMesh',
      'LocalMeshEntryOptions',
      'MeshSocket',
      'MeshWsClientOptions',
      'MeshWsClientSession',
      'MeshWsConnector',
      'MeshWsLimits',
      'MessageAttachment',
      'MessagePayload',
      'MessageSigner',
      'ReplayGuard',
      'SendRequest',
      'TrustStamp',
    ],
  },
  shell: {
    values: [
      'DEFAULT_REJECTION_CODES',
      'EXIT_DENIED',
      'EXIT_NOT_FOUND',
      'EXIT_REJECTED',
      'createDefaultCommands',
      'createShell',
    ],
    types: [
      'CommandContext',
      'Shell',
      'ShellCommand',
      'ShellGate',
      'ShellOptions',
      'ShellResult',
      'ShellSink',
      'ShellTraceEntry',
    ],
  },
  sql: {
    values: ['createDbExecuteTool', 'createDbQueryTool', 'createSqlGuard'],
    types: ['ExecuteResult', 'QueryResult', 'SqlGuard', 'SqlGuardOptions', 'SqlQueryStats', 'TableProtection'],
  },
  tools: {
    values: [
      'FETCH_BODY_CAP_BYTES',
      'GATE_REJECTION_CODES',
      'LOOP_NOTE_ROLE',
      'MAX_LOOP_NOTE_CHARS',
      'MAX_MODEL_INVOKE_TOKENS',
      'MIN_TIMER_INTERVAL_MS',
      'createAskTool',
      'createExecutionTools',
      'createModelInvokeTool',
      'createSayTool',
      'createSetTimerTool',
      'createShellGate',
      'createShellTool',
      'createSysCodeTool',
      'createSysFetchTool',
      'createSysLambdaTool',
      'createTaskResolveTool',
      'createWsTools',
      'fsDeleteTool',
      'fsListTool',
      'fsReadTool',
      'fsWriteTool',
      'loopInjectTool',
      'msgListTool',
      'msgReadTool',
      'msgSendStubTool',
      'nextCronWake',
      'parseCronSchedule',
      'sysDeleteMetaTool',
      'sysDeleteTimerTool',
      'sysGetConfigTool',
      'sysGetMetaTool',
      'sysListTimersTool',
      'sysSetMetaTool',
      'sysUpdateConfigTool',
    ],
    types: [
      'BuiltInToolDeps',
      'ChatHooks',
      'CronSchedule',
      'FetchClient',
      'FetchClients',
      'ModelInvokeDeps',
      'WsClient',
      'WsRegistry',
    ],
  },
  triggers: {
    values: [
      'DEFAULT_TRIGGER_LIMITS',
      'MAX_TRIGGER_BATCH',
      'RESERVED_TRIGGER_SOURCES',
      'TRIGGER_FILTER_KEYS',
      'TRIGGER_TYPES',
      'createTimerClock',
      'createTriggerDispatcher',
      'createTriggerGuard',
      'evaluateTriggerMatch',
      'externalEvent',
      'matchesFilterValue',
      'nodeTimerScheduler',
      'triggerEventOf',
      'triggerTimingOf',
    ],
    types: [
      'TimerClock',
      'TimerClockOptions',
      'TimerFiring',
      'TimerScheduler',
      'TriggerCause',
      'TriggerConfig',
      'TriggerDispatcher',
      'TriggerDispatcherOptions',
      'TriggerEvent',
      'TriggerFiring',
      'TriggerGuard',
      'TriggerLimits',
      'TriggerOutcome',
      'TriggerTiming',
      'TriggerType',
      'TriggerWake',
    ],
  },
};

const MODULES: Readonly<Record<string, object>> = {
  adf,
  code,
  gate,
  host,
  identity,
  mcp,
  messaging,
  shell,
  sql,
  tools,
  triggers,
};

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, { types?: string; import?: string }>;
};

describe('@trust/agent-runtime subpath exports', () => {
  it('pins every subpath module loaded here', () => {
    expect(Object.keys(MODULES).sort()).toEqual(Object.keys(SUBPATHS).sort());
  });

  it.each(Object.entries(SUBPATHS))('/%s exports exactly its pinned values at runtime', (name, pinned) => {
    expect(Object.keys(MODULES[name] ?? {}).sort()).toEqual([...pinned.values].sort());
  });

  it.each(Object.entries(SUBPATHS))('/%s declares exactly its pinned values and types', (name, pinned) => {
    const declared = declaredExports(new URL(`./${name}/index.ts`, import.meta.url));
    expect(declared.values).toEqual([...pinned.values].sort());
    expect(declared.types).toEqual([...pinned.types].sort());
  });

  it('package.json maps `.` and every pinned subpath, and nothing else, to its built file and types', () => {
    const expected = Object.fromEntries(
      ['index', ...Object.keys(SUBPATHS)].map((name) => [
        name === 'index' ? '.' : `./${name}`,
        { types: `./dist/${name}.d.ts`, import: `./dist/${name}.js` },
      ]),
    );
    expect(pkg.exports).toEqual(expected);
  });

  it('the build has one entry with declarations per public entry point, each its folder index', () => {
    const config = tsup as { entry: Record<string, string>; dts: { entry: Record<string, string> } };
    const expected = Object.fromEntries([
      ['index', 'src/index.ts'],
      ...Object.keys(SUBPATHS).map((name) => [name, `src/${name}/index.ts`]),
    ]);
    expect(config.dts.entry).toEqual(expected);
    expect(Object.entries(config.entry)).toEqual(expect.arrayContaining(Object.entries(expected)));
  });
});
