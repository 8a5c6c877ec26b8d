export type {
  ContentBlock,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelTool,
  OutputBlock,
  ProviderHttpClient,
  ProviderHttpResponse,
  RetryOptions,
  StopReason,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from './model-provider.js';
export { createScriptedProvider, SCRIPTED_LABEL } from './scripted-provider.js';
export type { ScriptedProvider, ScriptedStep } from './scripted-provider.js';
export { createOpenAIProvider } from './openai-provider.js';
export { createAnthropicProvider, ANTHROPIC_VERSION } from './anthropic-provider.js';
export type { HttpProviderOptions } from './provider-http.js';
export { parseSse } from './sse.js';
export type { SseEvent } from './sse.js';
