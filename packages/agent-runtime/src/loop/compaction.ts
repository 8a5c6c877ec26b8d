import type { AdfFile } from '../adf/adf-file.js';
import type { AgentConfig } from '../config/agent-config-schema.js';
import type { ContentBlock, ModelMessage, ModelProvider } from '../providers/model-provider.js';

/**
 * Long conversations at a flat cost. The model is sent a bounded window of the history: when the
 * window outgrows its token budget, the older messages are compacted into one summary row written
 * to `adf_loop` (role {@link LOOP_SUMMARY_ROLE}), by the agent's own model or, when there is no model
 * to ask (or it fails), by a plain truncation with a marker. Nothing is deleted: the compacted rows
 * stay in `adf_loop` for the owner, the audit and the studio; a turn reads only the rows from the
 * latest summary's boundary on (see loop-history.ts).
 */

/** The `adf_loop` role of a compaction summary. */
export const LOOP_SUMMARY_ROLE = 'summary';

/** Context size assumed when neither the agent config nor the provider says (tokens). */
export const DEFAULT_CONTEXT_TOKENS: Readonly<Record<ModelProvider['kind'], number>> = Object.freeze({
  anthropic: 200_000,
  'openai-compatible': 128_000,
  scripted: 200_000,
});

/** Tokens kept free for the answer when `model.max_tokens` is not set. */
const DEFAULT_ANSWER_RESERVE = 4_096;
/** The smallest history budget, whatever the window: a summary and the latest exchange fit. */
const MIN_HISTORY_TOKENS = 256;
/** Bound on the transcript the summariser is given, in characters. */
const MAX_TRANSCRIPT_CHARS = 400_000;

/** The content of a summary row (versioned: it is a disk format). */
export interface SummaryContent {
  readonly v: 1;
  /** Who wrote the text: the agent's model, or the runtime's truncation marker. */
  readonly kind: 'model' | 'truncation';
  readonly text: string;
  /** The first seq the window keeps; every message before it is represented by this summary. */
  readonly keepFromSeq: number;
  /** Messages (not rows) the summary replaces, and their estimated tokens. */
  readonly messages: number;
  readonly tokens: number;
}

/** Reads a summary row's content; `undefined` when it is not one this runtime wrote. */
export function parseSummary(content: unknown): SummaryContent | undefined {
  const c = content as Partial<SummaryContent> | null;
  if (!c || typeof c !== 'object' || c.v !== 1 || typeof c.text !== 'string') return undefined;
  if (!Number.isSafeInteger(c.keepFromSeq) || (c.kind !== 'model' && c.kind !== 'truncation')) return undefined;
  return c as SummaryContent;
}

/** How a summary is shown to the model: framed as the runtime's, never in the owner's voice. */
export function formatSummary(s: SummaryContent): string {
  const by = s.kind === 'model' ? 'summarised by you (the agent model)' : 'truncated by the runtime';
  return (
    `[conversation compacted: ${s.messages} earlier messages were ${by} to keep the context window ` +
    `bounded; the full history remains in adf_loop]\n${s.text}`
  );
}

/** A rough, provider-neutral token estimate (4 characters a token) of one message. */
export function estimateTokens(m: ModelMessage | string): number {
  if (typeof m === 'string') return Math.ceil(m.length / 4) + 4;
  if (typeof m.content === 'string') return Math.ceil(m.content.length / 4) + 4;
  // Text blocks by their length (no serialisation: this runs over the whole window every turn).
  let chars = 0;
  for (const b of m.content) {
    if (b.type === 'text') chars += b.text.length + 16;
    else if (b.type === 'tool_result') chars += (typeof b.content === 'string' ? b.content.length : 0) + 48;
    else chars += JSON.stringify(b).length;
  }
  return Math.ceil(chars / 4) + 4;
}

/**
 * The tokens of history one model call may carry: the window (`model.context_window`, else the
 * provider's context size, else {@link DEFAULT_CONTEXT_TOKENS}) less the answer's reserve and the
 * system prompt and tools sent with it.
 */
export function historyBudget(config: AgentConfig, provider: ModelProvider, overheadTokens = 0): number {
  const window = config.model.context_window ?? provider.contextTokens ?? DEFAULT_CONTEXT_TOKENS[provider.kind];
  const reserve = config.model.max_tokens ?? DEFAULT_ANSWER_RESERVE;
  return Math.max(MIN_HISTORY_TOKENS, Math.floor(window * 0.9) - reserve - overheadTokens);
}

/** The window as loaded: messages, the seq each starts at, and their estimated tokens. */
export interface WindowView {
  readonly messages: readonly ModelMessage[];
  readonly seqs: readonly number[];
  readonly tokens: number;
}

const hasToolResult = (m: ModelMessage) =>
  typeof m.content !== 'string' && m.content.some((b: ContentBlock) => b.type === 'tool_result');

/**
 * Where to cut: the first message kept, so that the kept tail holds at most half the budget (room
 * to grow before the next compaction) and no tool result is separated from its call. `undefined`
 * when nothing can be compacted.
 */
export function chooseCut(view: WindowView, budget: number): number | undefined {
  const { messages } = view;
  if (messages.length < 2) return undefined;
  let kept = 0;
  let i = messages.length;
  while (i > 0 && kept + estimateTokens(messages[i - 1]!) <= budget / 2) kept += estimateTokens(messages[--i]!);
  if (i >= messages.length) i = messages.length - 1; // the latest message is always sent
  while (i < messages.length && hasToolResult(messages[i]!)) i++; // never orphan a tool result
  if (i >= messages.length) i = messages.length - 2; // the last exchange: keep its call with its result
  return i >= 1 ? i : undefined;
}

const transcript = (messages: readonly ModelMessage[]) => {
  const lines = messages.map((m) => {
    const body =
      typeof m.content === 'string'
        ? m.content
        : m.content
            .map((b) =>
              b.type === 'text'
                ? b.text
                : b.type === 'tool_use'
                  ? `[tool call ${b.name} ${JSON.stringify(b.input).slice(0, 500)}]`
                  : b.type === 'tool_result'
                    ? `[tool result ${String(b.content).slice(0, 500)}]`
                    : `[${(b as { type: string }).type}]`,
            )
            .join('\n');
    return `${m.role}: ${body}`;
  });
  const text = lines.join('\n\n');
  return text.length > MAX_TRANSCRIPT_CHARS ? text.slice(text.length - MAX_TRANSCRIPT_CHARS) : text;
};

const SUMMARY_PROMPT =
  'You are compacting your own earlier conversation so it fits your context window. Write a concise summary ' +
  'of the transcript you are given: the facts, decisions, open tasks and anything you promised. Plain text only.';

/** Options of {@link compactWindow}. */
export interface CompactOptions {
  readonly adf: AdfFile;
  readonly provider: ModelProvider;
  readonly view: WindowView;
  readonly budget: number;
  /** `model`: ask the agent's own model; `truncate`: the runtime's marker only. */
  readonly summariser: 'model' | 'truncate';
  readonly signal?: AbortSignal;
}

/**
 * Compacts the window when it is over budget: writes one summary row and returns true; false when
 * the window fits (or nothing can be cut). A model that fails to summarise is logged and replaced by
 * the truncation marker: compaction never fails a turn.
 *
 * @example
 * ```ts
 * const view = loadWindow(adf);
 * if (await compactWindow({ adf, provider, view, budget: historyBudget(config, provider), summariser: 'model' }))
 *   view = loadWindow(adf);
 * ```
 */
export async function compactWindow(o: CompactOptions): Promise<boolean> {
  if (o.view.tokens <= o.budget) return false;
  const cut = chooseCut(o.view, o.budget);
  if (cut === undefined) return false;
  const dropped = o.view.messages.slice(0, cut);
  const tokens = dropped.reduce((n, m) => n + estimateTokens(m), 0);
  let kind: SummaryContent['kind'] = 'truncation';
  let text = `(${dropped.length} messages, about ${tokens} tokens, were removed from the window without a summary)`;
  if (o.summariser === 'model') {
    try {
      const r = await o.provider.createMessage({
        system: SUMMARY_PROMPT,
        messages: [{ role: 'user', content: transcript(dropped) }],
        maxTokens: Math.max(64, Math.min(2_048, Math.floor(o.budget / 4))),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const said = r.content
        .filter((b) => b.type === 'text')
        .map((b) => (b as { text: string }).text)
        .join('')
        .trim();
      if (said) {
        kind = 'model';
        // A summary never takes more than a quarter of the budget.
        text = said.slice(0, o.budget);
      }
    } catch (e) {
      o.adf.logs.add({
        level: 'warn',
        origin: 'loop',
        event: 'compaction_model_failed',
        message: `the model could not summarise; the window was truncated instead: ${(e as Error)?.message ?? e}`,
      });
    }
  }
  const content: SummaryContent = {
    v: 1,
    kind,
    text,
    keepFromSeq: o.view.seqs[cut]!,
    messages: dropped.length,
    tokens,
  };
  const seq = o.adf.loop.append({ role: LOOP_SUMMARY_ROLE, content });
  o.adf.logs.add({
    level: 'info',
    origin: 'loop',
    event: 'loop_compacted',
    message: `compacted ${dropped.length} messages (~${tokens} tokens) into summary row ${seq} (${kind})`,
  });
  return true;
}
