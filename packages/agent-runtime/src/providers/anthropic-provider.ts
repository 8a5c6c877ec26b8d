import { TrustError } from '@trust/core';
import { checkOptions } from '../options/strict-options.js';
import { httpProviderOptionsSchema } from './provider-options.js';
import type {
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  OutputBlock,
  StopReason,
} from './model-provider.js';
import { parseJsonBody, parseToolArguments, sendProviderRequest } from './provider-http.js';
import type { HttpProviderOptions } from './provider-http.js';
import { parseSse } from './sse.js';

/** The Messages API version this provider speaks. */
export const ANTHROPIC_VERSION = '2023-06-01';

const STOP: Record<string, StopReason> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  pause_turn: 'end_turn',
  refusal: 'end_turn',
};

function toAnthropicMessages(messages: readonly ModelMessage[]): unknown[] {
  return messages.map((m) => ({
    role: m.role,
    content:
      typeof m.content === 'string'
        ? m.content
        : m.content.map((b) => {
            if (b.type === 'text') return { type: 'text', text: b.text };
            if (b.type === 'tool_use') return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
            return {
              type: 'tool_result',
              tool_use_id: b.toolUseId,
              content: b.content,
              ...(b.isError ? { is_error: true } : {}),
            };
          }),
  }));
}

/**
 * An Anthropic Messages API provider over the egress client. It sends no API key: the egress
 * policy for the API host injects `x-api-key`.
 *
 * @example
 * ```ts
 * const egress = createEgressClient({ policy: chain(allowHosts(['api.anthropic.com']),
 * injectHeaders(['api.anthropic.com'], { 'x-api-key': key })) });
 * const provider = createAnthropicProvider({ baseUrl: 'https://api.anthropic.com', model: 'claude-sonnet-4-5', egress
 * });
 * ```
 */
export function createAnthropicProvider(input: HttpProviderOptions): ModelProvider {
  const options = checkOptions('createAnthropicProvider', httpProviderOptionsSchema, input);
  const label = `anthropic ${options.model} at ${new URL(options.baseUrl).host}`;
  const stream = options.stream ?? true;
  return {
    kind: 'anthropic',
    label,
    model: options.model,
    async createMessage(request: ModelRequest): Promise<ModelResponse> {
      const body: Record<string, unknown> = {
        model: options.model,
        max_tokens: request.maxTokens ?? options.maxTokens ?? 4096,
        messages: toAnthropicMessages(request.messages),
        ...(request.system ? { system: request.system } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.tools?.length
          ? {
              tools: request.tools.map((t) => ({
                name: t.name,
                description: t.description,
                input_schema: t.inputSchema,
              })),
            }
          : {}),
        ...(stream ? { stream: true } : {}),
      };
      const path = /\/v1\/?$/.test(options.baseUrl) ? 'messages' : 'v1/messages';
      const res = await sendProviderRequest(
        options,
        label,
        path,
        { 'anthropic-version': ANTHROPIC_VERSION, accept: stream ? 'text/event-stream' : 'application/json' },
        body,
        request.signal,
      );
      if (stream && res.body && (res.headers.get('content-type') ?? '').includes('text/event-stream'))
        return readStream(res.body, request, options.model, label);
      return fromMessage(parseJsonBody(await res.text(), label), options.model, label);
    },
  };
}

function fromMessage(json: unknown, model: string, label: string): ModelResponse {
  const j = json as {
    type?: string;
    model?: string;
    content?: Array<{ type: string; text?: string; id?: string; name?: string; input?: Record<string, unknown> }>;
    stop_reason?: string;
    usage?: { input_tokens?: number; output_tokens?: number };
    error?: { message?: string };
  };
  if (j.type === 'error')
    throw new TrustError(
      'PROVIDER_BAD_RESPONSE',
      `${label} returned an error: ${String(j.error?.message ?? '').slice(0, 300)}`,
    );
  if (!Array.isArray(j.content)) throw new TrustError('PROVIDER_BAD_RESPONSE', `${label} sent no content`);
  const content: OutputBlock[] = [];
  for (const b of j.content) {
    if (b.type === 'text' && typeof b.text === 'string') content.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use')
      content.push({
        type: 'tool_use',
        id: String(b.id),
        name: String(b.name),
        input: b.input && typeof b.input === 'object' ? b.input : {},
      });
  }
  return {
    content,
    stopReason: STOP[j.stop_reason ?? 'end_turn'] ?? 'end_turn',
    usage: { inputTokens: j.usage?.input_tokens ?? 0, outputTokens: j.usage?.output_tokens ?? 0 },
    model: j.model ?? model,
  };
}

/** One stream event as it arrives from the API: any field may be absent. */
interface StreamEvent {
  readonly type?: string;
  readonly index?: number;
  readonly message?: {
    readonly model?: string;
    readonly usage?: { readonly input_tokens?: number; readonly output_tokens?: number };
  };
  readonly content_block?: {
    readonly type?: string;
    readonly text?: string;
    readonly id?: string;
    readonly name?: string;
  };
  readonly delta?: {
    readonly type?: string;
    readonly text?: string;
    readonly partial_json?: string;
    readonly stop_reason?: string;
  };
  readonly usage?: { readonly output_tokens?: number };
  readonly error?: { readonly type?: string; readonly message?: unknown };
}

async function readStream(
  body: ReadableStream<Uint8Array>,
  request: ModelRequest,
  model: string,
  label: string,
): Promise<ModelResponse> {
  // Keyed by the event's index as received (a malformed event without one keeps `undefined`).
  const blocks = new Map<
    number | undefined,
    { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; json: string }
  >();
  let stop: string | undefined;
  let inputTokens = 0;
  let outputTokens = 0;
  let answeredModel = model;
  let ended = false;
  for await (const ev of parseSse(body)) {
    const d = parseJsonBody(ev.data, label) as StreamEvent;
    switch (d.type) {
      case 'message_start':
        answeredModel = d.message?.model ?? model;
        inputTokens = d.message?.usage?.input_tokens ?? 0;
        outputTokens = d.message?.usage?.output_tokens ?? 0;
        break;
      case 'content_block_start':
        if (d.content_block?.type === 'text') blocks.set(d.index, { type: 'text', text: d.content_block.text ?? '' });
        else if (d.content_block?.type === 'tool_use')
          blocks.set(d.index, {
            type: 'tool_use',
            id: d.content_block.id as string,
            name: d.content_block.name as string,
            json: '',
          });
        break;
      case 'content_block_delta': {
        const b = blocks.get(d.index);
        if (b?.type === 'text' && d.delta?.type === 'text_delta') {
          const text = d.delta.text as string;
          b.text += text;
          request.onTextDelta?.(text);
        } else if (b?.type === 'tool_use' && d.delta?.type === 'input_json_delta') b.json += d.delta.partial_json ?? '';
        break;
      }
      case 'message_delta':
        if (d.delta?.stop_reason) stop = d.delta.stop_reason;
        if (typeof d.usage?.output_tokens === 'number') outputTokens = d.usage.output_tokens;
        break;
      case 'message_stop':
        ended = true;
        break;
      case 'error':
        throw new TrustError(
          d.error?.type === 'overloaded_error' ? 'PROVIDER_UNAVAILABLE' : 'PROVIDER_STREAM_ERROR',
          `${label} reported an error mid-stream: ${String(d.error?.message ?? 'unknown').slice(0, 300)}`,
        );
      default:
        break; // ping, content_block_stop and future event types
    }
    if (ended) break;
  }
  if (!ended) throw new TrustError('PROVIDER_BAD_RESPONSE', `${label} ended the stream before message_stop`);
  const content: OutputBlock[] = [...blocks.entries()]
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([, b]) =>
      b.type === 'text'
        ? { type: 'text', text: b.text }
        : { type: 'tool_use', id: b.id, name: b.name, input: parseToolArguments(b.json) },
    );
  return {
    content,
    stopReason: STOP[stop ?? 'end_turn'] ?? 'end_turn',
    usage: { inputTokens, outputTokens },
    model: answeredModel,
  };
}
