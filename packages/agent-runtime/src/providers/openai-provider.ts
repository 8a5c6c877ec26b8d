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

const FINISH: Record<string, StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'end_turn',
};

function toOpenAiMessages(system: string | undefined, messages: readonly ModelMessage[]): unknown[] {
  const out: unknown[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of messages) {
    if (typeof m.content === 'string') {
      out.push({ role: m.role, content: m.content });
      continue;
    }
    if (m.role === 'assistant') {
      const text = m.content
        .filter((b) => b.type === 'text')
        .map((b) => (b as { text: string }).text)
        .join('');
      const calls = m.content
        .filter((b) => b.type === 'tool_use')
        .map((b) => {
          const t = b as { id: string; name: string; input: unknown };
          return { id: t.id, type: 'function', function: { name: t.name, arguments: JSON.stringify(t.input) } };
        });
      out.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'tool_result')
        out.push({ role: 'tool', tool_call_id: b.toolUseId, content: b.isError ? `ERROR: ${b.content}` : b.content });
      else if (b.type === 'text') out.push({ role: 'user', content: b.text });
    }
  }
  return out;
}

/**
 * An OpenAI-compatible Chat Completions provider (OpenAI, vLLM, Ollama, LM Studio…) over the
 * egress client. It sends no credentials: the egress policy for the API host injects them.
 *
 * @example
 * ```ts
 * const egress = createEgressClient({ policy: chain(allowHosts(['api.openai.com']), injectHeaders(['api.openai.com'], {
 * authorization: `Bearer ${key}` })) });
 * const provider = createOpenAIProvider({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', egress });
 * ```
 */
export function createOpenAIProvider(input: HttpProviderOptions): ModelProvider {
  const options = checkOptions('createOpenAIProvider', httpProviderOptionsSchema, input);
  const label = `openai-compatible ${options.model} at ${new URL(options.baseUrl).host}`;
  const stream = options.stream ?? true;
  return {
    kind: 'openai-compatible',
    label,
    model: options.model,
    async createMessage(request: ModelRequest): Promise<ModelResponse> {
      const body: Record<string, unknown> = {
        model: options.model,
        messages: toOpenAiMessages(request.system, request.messages),
        max_tokens: request.maxTokens ?? options.maxTokens ?? 4096,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.tools?.length
          ? {
              tools: request.tools.map((t) => ({
                type: 'function',
                function: { name: t.name, description: t.description, parameters: t.inputSchema },
              })),
            }
          : {}),
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      };
      const res = await sendProviderRequest(
        options,
        label,
        'chat/completions',
        { accept: stream ? 'text/event-stream' : 'application/json' },
        body,
        request.signal,
      );
      if (stream && res.body && (res.headers.get('content-type') ?? '').includes('text/event-stream'))
        return readStream(res.body, request, options.model, label);
      return fromCompletion(parseJsonBody(await res.text(), label), options.model, label);
    },
  };
}

function fromCompletion(json: unknown, model: string, label: string): ModelResponse {
  const j = json as {
    model?: string;
    choices?: Array<{
      message?: {
        content?: string | null;
        tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
      };
      finish_reason?: string;
    }>;
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const choice = j.choices?.[0];
  if (!choice?.message) throw new TrustError('PROVIDER_BAD_RESPONSE', `${label} sent no choices`);
  const content: OutputBlock[] = [];
  if (choice.message.content) content.push({ type: 'text', text: choice.message.content });
  for (const c of choice.message.tool_calls ?? [])
    content.push({
      type: 'tool_use',
      id: c.id,
      name: c.function.name,
      input: parseToolArguments(c.function.arguments),
    });
  return {
    content,
    stopReason: FINISH[choice.finish_reason ?? 'stop'] ?? 'end_turn',
    usage: { inputTokens: j.usage?.prompt_tokens ?? 0, outputTokens: j.usage?.completion_tokens ?? 0 },
    model: j.model ?? model,
  };
}

async function readStream(
  body: ReadableStream<Uint8Array>,
  request: ModelRequest,
  model: string,
  label: string,
): Promise<ModelResponse> {
  let text = '';
  const calls = new Map<number, { id: string; name: string; args: string }>();
  let finish: string | undefined;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let answeredModel = model;
  for await (const ev of parseSse(body)) {
    if (ev.data === '[DONE]') break;
    const chunk = parseJsonBody(ev.data, label) as {
      model?: string;
      error?: { message?: string };
      choices?: Array<{
        delta?: {
          content?: string | null;
          tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
        };
        finish_reason?: string | null;
      }>;
      usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
    };
    if (chunk.error)
      throw new TrustError(
        'PROVIDER_STREAM_ERROR',
        `${label} reported an error mid-stream: ${String(chunk.error.message ?? 'unknown').slice(0, 300)}`,
      );
    if (chunk.model) answeredModel = chunk.model;
    if (chunk.usage)
      usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.delta?.content) {
      text += choice.delta.content;
      request.onTextDelta?.(choice.delta.content);
    }
    for (const tc of choice.delta?.tool_calls ?? []) {
      const cur = calls.get(tc.index) ?? { id: '', name: '', args: '' };
      if (tc.id) cur.id = tc.id;
      if (tc.function?.name) cur.name += tc.function.name;
      if (tc.function?.arguments) cur.args += tc.function.arguments;
      calls.set(tc.index, cur);
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (finish === undefined)
    throw new TrustError('PROVIDER_BAD_RESPONSE', `${label} ended the stream without a finish reason`);
  const content: OutputBlock[] = [];
  if (text) content.push({ type: 'text', text });
  for (const [, c] of [...calls.entries()].sort((a, b) => a[0] - b[0]))
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: parseToolArguments(c.args) });
  return { content, stopReason: FINISH[finish] ?? 'end_turn', usage, model: answeredModel };
}
