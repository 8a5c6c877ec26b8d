import { describe, expect, it } from 'vitest';
import { declaredExports } from './export-names.test-helper.js';
import * as mod from './index.js';

// The embedder's surface, pinned so an API change is a visible diff in review. The building blocks
// advanced hosts need are pinned per subpath in subpath-exports.test.ts; the rest is internal.
const VALUES: readonly string[] = [
  // agents: the .adf file, the loop, identities and reviews
  'ADF_SCHEMA_VERSION',
  'AgentIdentity',
  'acceptAdfReview',
  'createAdf',
  'createAdfReviewStore',
  'createIdentity',
  'createIdentityKeys',
  'describeAdfReview',
  'diffAdfReviews',
  'loadIdentity',
  'loadOrCreateIdentityKeys',
  'openAdf',
  'openAgent',
  'provisionAgentIdentity',
  'reviewKeyOf',
  'signAdfContent',
  'withAdfSnapshot',
  // config
  'BUILT_IN_TOOLS',
  'DEFAULT_LOCKED_PATHS',
  'agentConfigSchema',
  'checkAgentConfig',
  'defaultAgentConfig',
  'effectiveToolDeclarations',
  'parseAgentConfig',
  'redactConfig',
  // model providers
  'SCRIPTED_LABEL',
  'createAnthropicProvider',
  'createOpenAIProvider',
  'createScriptedProvider',
  // messaging
  'MESSAGE_VERSION',
  'composeMessage',
  'createAgentMessaging',
  'createLocalMesh',
  'deliverMessage',
  'openMeshWsSession',
];

const TYPES: readonly string[] = [
  // agents
  'AcceptAdfReviewOptions',
  'AdfFile',
  'AdfReviewChange',
  'AdfReviewKey',
  'AdfReviewStore',
  'AdfReviewSurface',
  'Agent',
  'AgentEgress',
  'AgentEvent',
  'AgentMcpOptions',
  'AgentState',
  'CreateAdfOptions',
  'IdentityKeys',
  'OpenAdfOptions',
  'OpenAgentOptions',
  'TimerScheduler',
  'TriggerFiring',
  'TriggerLimits',
  'TurnOutcome',
  // config
  'AgentConfig',
  'BuiltInTool',
  'ToolDeclaration',
  // tools and approvals
  'ApprovalOutcome',
  'ApprovalRequest',
  'ApprovalResponse',
  'Approver',
  'JsonSchema',
  'ToolCallOptions',
  'ToolContext',
  'ToolDefinition',
  'ToolOrigin',
  // model providers
  'ContentBlock',
  'HttpProviderOptions',
  'ModelMessage',
  'ModelProvider',
  'ModelRequest',
  'ModelResponse',
  'ModelTool',
  'OutputBlock',
  'ProviderHttpClient',
  'ProviderHttpResponse',
  'RetryOptions',
  'ScriptedProvider',
  'ScriptedStep',
  'StopReason',
  'TextBlock',
  'ToolResultBlock',
  'ToolUseBlock',
  'Usage',
  // messaging
  'AgentMessage',
  'AgentMessaging',
  'AgentMessagingOptions',
  'ComposeOptions',
  'DeliveryOptions',
  'DeliveryResult',
  'LocalMesh',
  'MeshWsClientOptions',
  'MeshWsClientSession',
  'SendRequest',
];

describe('@trust/agent-runtime public API', () => {
  it('exports exactly the pinned values at runtime', () => {
    expect(Object.keys(mod).sort()).toEqual([...VALUES].sort());
  });

  it('declares exactly the pinned values and types', () => {
    const declared = declaredExports(new URL('./index.ts', import.meta.url));
    expect(declared.values).toEqual([...VALUES].sort());
    expect(declared.types).toEqual([...TYPES].sort());
  });
});
