import type { Principal } from '@trust/core';

/** Text produced by the model. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}
/** A tool call requested by the model. `input` is the parsed JSON arguments. */
export interface ToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}
/** The runtime's answer to one tool call, sent back in a user message. */
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly toolUseId: string;
  readonly content: string;
  readonly isError?: boolean;
}

/** Content the model can produce. */
export type OutputBlock = TextBlock | ToolUseBlock;
/** Content of a conversation message. */
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

/** One message of the conversation, provider-neutral (Anthropic-shaped). */
export interface ModelMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string | readonly ContentBlock[];
}

/** A tool advertised to the model, with its JSON schema. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

/** Why the model stopped. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';

/** Token counts as reported by the provider (0 when it reports none). */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** One request to a model. */
export interface ModelRequest {
  readonly system?: string;
  readonly messages: readonly ModelMessage[];
  /** `undefined` and `[]` both mean: no tools offered. */
  readonly tools?: readonly ModelTool[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly signal?: AbortSignal;
  /** Called with each text fragment while a streamed answer arrives. */
  readonly onTextDelta?: (text: string) => void;
}

/** The normalised answer of every provider. */
export interface ModelResponse {
  readonly content: readonly OutputBlock[];
  readonly usage: Usage;
  readonly stopReason: StopReason;
  /** Model id that answered. */
  readonly model: string;
}

/** The one interface the loop talks to. */
export interface ModelProvider {
  /** `scripted`, `openai-compatible` or `anthropic`. */
  readonly kind: 'scripted' | 'openai-compatible' | 'anthropic';
  /** Human-facing label; the scripted provider always says it is scripted. */
  readonly label: string;
  readonly model: string;
  /** The model's context size in tokens, when the provider knows it (the loop's default window). */
  readonly contextTokens?: number;
  createMessage(request: ModelRequest): Promise<ModelResponse>;
}

/**
 * The HTTP client a real provider uses: structurally the `@trust/egress` client's `fetch`, so
 * every request passes the egress policy (which injects the API key) and the address guard.
 */
export interface ProviderHttpClient {
  fetch(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignal },
    call: { principal: Principal },
  ): Promise<ProviderHttpResponse>;
}

/** The part of a fetch `Response` a provider reads. */
export interface ProviderHttpResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
}

/**
 * Retry policy for transient failures (429, 5xx, 529, connection resets). Auth and request errors are never retried.
 */
export interface RetryOptions {
  /** Attempts in total, including the first (default 3, at most 10). */
  readonly maxAttempts?: number;
  /** First backoff (default 500 ms), doubled per attempt. */
  readonly baseDelayMs?: number;
  /** Ceiling of one backoff, including a server's retry-after (default 8000 ms). */
  readonly maxDelayMs?: number;
}
