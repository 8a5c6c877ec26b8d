import { describe, expect, it } from 'vitest';
import * as mod from './index.js';

describe('@trust/agent-runtime public API', () => {
  // state and decisions (part 1/3)
  it('exports the .adf file, config, gate, SQL guard and identity API', () => {
    const part1 = [
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
    ].sort();
    expect(Object.keys(mod).filter((k) => part1.includes(k)).sort()).toEqual(part1);
  });

  // control API (part 3/3)
  it('exports the control API', () => {
    const control = [
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
    expect(Object.keys(mod).filter((k) => control.includes(k)).sort()).toEqual(control);
  });

  // execution (part 2/3)
  it('exports the loop, providers, code sandbox, shell and execution tools', () => {
    const execution = [
      'ANTHROPIC_VERSION', 'CODE_TIMEOUT_CEILING_MS', 'DEFAULT_REJECTION_CODES', 'EXIT_DENIED', 'EXIT_NOT_FOUND', 'EXIT_REJECTED',
      'FETCH_BODY_CAP_BYTES', 'GATE_REJECTION_CODES', 'MIN_TIMER_INTERVAL_MS', 'SCRIPTED_LABEL', 'createAnthropicProvider', 'createAskTool',
      'createCodeRunner', 'createCodeSandbox', 'createDefaultCommands', 'createExecutionTools', 'createOpenAIProvider', 'createSayTool',
      'createScriptedProvider', 'createSetTimerTool', 'createShell', 'createShellGate', 'createShellTool', 'createSysCodeTool',
      'createSysFetchTool', 'createSysLambdaTool', 'createWsTools', 'fsDeleteTool', 'fsListTool', 'fsReadTool', 'fsWriteTool',
      'isGuestIdentifier', 'msgSendStubTool', 'openAgent', 'parseLambdaRef', 'parseSse', 'runMiddlewareChain', 'sysDeleteMetaTool',
      'sysDeleteTimerTool', 'sysGetMetaTool', 'sysListTimersTool', 'sysSetMetaTool',
      'BLOCKED_MCP_ENV', 'BLOCKED_MCP_ENV_PREFIXES', 'SandboxStdioTransport', 'connectMcpServer', 'evaluateMcpEnvVar', 'filterMcpEnv', 'mcpToolName',
    ].sort();
    expect(Object.keys(mod).filter((k) => execution.includes(k)).sort()).toEqual(execution);
  });
});
