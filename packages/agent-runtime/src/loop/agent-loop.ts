import { TrustError } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { ToolGate } from '../gate/tool-gate.js';
import type {
  ModelMessage,
  ModelProvider,
  ModelTool,
  OutputBlock,
  ToolResultBlock,
  ToolUseBlock,
} from '../providers/model-provider.js';
import { capText } from '../tools/tool-support.js';
import { compactWindow, estimateTokens, historyBudget } from './compaction.js';
import { loadConversation, repairDangling } from './loop-history.js';
import type { LoadedConversation, WindowCache } from './loop-history.js';
import type { AgentState, TurnOutcome } from './agent.js';

/** What the loop reports while it runs (for UIs and logs). */
export type AgentEvent =
  | { readonly kind: 'turn'; readonly turn: number; readonly provider: string }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool_call'; readonly name: string; readonly id: string }
  | { readonly kind: 'tool_result'; readonly name: string; readonly id: string; readonly isError: boolean }
  | { readonly kind: 'approval'; readonly taskId: string; readonly tool: string }
  | { readonly kind: 'say'; readonly text: string }
  | { readonly kind: 'ask'; readonly question: string }
  /** `adf.emit_event` from agent code: a `custom.*` event for the host (never from the model). */
  | { readonly kind: 'custom'; readonly type: string; readonly data: unknown; readonly from: string };

/** Inputs of one activation. */
export interface LoopInput {
  readonly adf: AdfFile;
  readonly gate: ToolGate;
  readonly provider: ModelProvider;
  /** Human text to append first; undefined continues pending work. */
  readonly input: string | undefined;
  readonly signal: AbortSignal;
  readonly maxTurns: number;
  readonly emit: (e: AgentEvent) => void;
  readonly setState: (s: AgentState) => void;
  /** The agent's window cache (see loop-history.ts): a turn then reads only the rows added since. */
  readonly window?: WindowCache;
  /** Told after every model call (for `on_llm_call` triggers); never sees the messages. */
  readonly onModelCall?: (call: {
    provider: string;
    model: string;
    ok: boolean;
    stopReason?: string;
    inputTokens?: number;
    outputTokens?: number;
  }) => void;
}

const textOf = (content: readonly OutputBlock[]) =>
  content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');

/**
 * One activation of the loop: model turn, tool calls through the gate (origin `llm`), tool
 * results back, until the model ends its turn, the turn limit is hit, or the signal aborts.
 * Every message is written to adf_loop before the next step, so a crash loses at most the step
 * in flight; a restart closes interrupted calls with an explanatory error result.
 */
export async function runAgentLoop(l: LoopInput): Promise<TurnOutcome> {
  const { adf, gate, provider, signal } = l;
  let loaded = loadConversation(adf, l.window);
  if (repairDangling(adf, loaded.messages).length > 0) loaded = loadConversation(adf, l.window);
  if (l.input !== undefined) {
    adf.loop.append({ role: 'user', content: l.input });
    loaded = loadConversation(adf, l.window);
  } else {
    const last = loaded.messages[loaded.messages.length - 1];
    // Notes from code (adf.loop_inject) never start the loop on their own.
    const pending = last !== undefined && last.role === 'user' && !loaded.notesOnlyTail;
    if (!pending) return { stopReason: 'idle', text: '', turns: 0 };
  }
  const config = adf.config();
  const toolsOf = (): ModelTool[] =>
    gate.visibleTools().map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as Record<string, unknown>,
    }));
  const overhead = estimateTokens(config.instructions ?? '') + estimateTokens(JSON.stringify(toolsOf()));
  const budget = historyBudget(config, provider, overhead);
  // The window sent to the model stays within budget: older turns become one summary row.
  const fit = async (view: LoadedConversation): Promise<LoadedConversation> => {
    const compacted = await compactWindow({
      adf,
      provider,
      view,
      budget,
      summariser: config.model.compaction,
      signal,
    });
    return compacted ? loadConversation(adf, l.window) : view;
  };
  let messages = loaded.messages;
  let windowTokens = loaded.tokens;
  // adf_loop seq of the last row the in-memory history reflects: a gap after an append means a
  // note was injected meanwhile (adf.loop_inject from code), so the history is re-read.
  let seenSeq = loaded.lastSeq;
  const limit = Math.min(l.maxTurns, config.limits.max_active_turns ?? Number.POSITIVE_INFINITY);
  const resultBudget = config.limits.max_tool_result_tokens;
  let lastText = '';
  for (let turn = 1; ; turn++) {
    if (signal.aborted) return { stopReason: 'aborted', text: lastText, turns: turn - 1 };
    if (turn > limit) {
      adf.logs.add({
        level: 'warn',
        origin: 'loop',
        event: 'turn_limit',
        message: `stopped after ${limit} model turns`,
      });
      return { stopReason: 'turn_limit', text: lastText, turns: turn - 1 };
    }
    if (windowTokens > budget) {
      loaded = await fit(turn === 1 ? loaded : loadConversation(adf, l.window));
      messages = loaded.messages;
      windowTokens = loaded.tokens;
      seenSeq = loaded.lastSeq;
    }
    l.setState('thinking');
    l.emit({ kind: 'turn', turn, provider: provider.label });
    const tools = toolsOf();
    let response: Awaited<ReturnType<ModelProvider['createMessage']>>;
    try {
      response = await provider.createMessage({
        ...(config.instructions ? { system: config.instructions } : {}),
        messages,
        tools,
        ...(config.model.max_tokens ? { maxTokens: config.model.max_tokens } : {}),
        ...(config.model.temperature !== undefined ? { temperature: config.model.temperature } : {}),
        signal,
      });
    } catch (e) {
      if (signal.aborted) return { stopReason: 'aborted', text: lastText, turns: turn - 1 };
      adf.logs.add({
        level: 'error',
        origin: 'loop',
        event: 'provider_error',
        message: e instanceof Error ? e.message : String(e),
      });
      l.onModelCall?.({ provider: provider.kind, model: config.model.model_id, ok: false });
      throw e;
    }
    l.onModelCall?.({
      provider: provider.kind,
      model: response.model,
      ok: true,
      stopReason: response.stopReason,
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
    });
    const assistantSeq = adf.loop.append({
      role: 'assistant',
      content: response.content,
      model: `${provider.kind}:${response.model}`,
      tokens: response.usage.inputTokens + response.usage.outputTokens,
    });
    lastText = textOf(response.content) || lastText;
    if (lastText) l.emit({ kind: 'text', text: textOf(response.content) });
    const calls = response.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    if (calls.length === 0) return { stopReason: response.stopReason, text: lastText, turns: turn };
    const injectedBefore = assistantSeq !== seenSeq + 1;
    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      if (signal.aborted) {
        results.push({ type: 'tool_result', toolUseId: call.id, isError: true, content: 'aborted before it ran' });
        continue;
      }
      l.setState('running_tool');
      l.emit({ kind: 'tool_call', name: call.name, id: call.id });
      results.push(await runToolCall(gate, call, signal, resultBudget));
      l.emit({
        kind: 'tool_result',
        name: call.name,
        id: call.id,
        isError: results[results.length - 1]!.isError === true,
      });
    }
    const resultsSeq = adf.loop.append({ role: 'user', content: results });
    if (injectedBefore || resultsSeq !== assistantSeq + 1) {
      const reloaded = loadConversation(adf, l.window);
      messages = reloaded.messages;
      windowTokens = reloaded.tokens;
      seenSeq = reloaded.lastSeq;
    } else {
      // Keep the in-memory history in step with adf_loop instead of re-reading every row per turn.
      const added: ModelMessage[] = [
        { role: 'assistant', content: response.content },
        { role: 'user', content: results },
      ];
      messages = [...messages, ...added];
      windowTokens += added.reduce((n, m) => n + estimateTokens(m), 0);
      seenSeq = resultsSeq;
    }
    if (signal.aborted) return { stopReason: 'aborted', text: lastText, turns: turn };
  }
}

async function runToolCall(
  gate: ToolGate,
  call: ToolUseBlock,
  signal: AbortSignal,
  budget: number,
): Promise<ToolResultBlock> {
  try {
    const value = await gate.call(call.name, call.input, { origin: 'llm', signal, principalId: 'loop' });
    let text: string;
    try {
      text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
    } catch {
      text = String(value);
    }
    return { type: 'tool_result', toolUseId: call.id, content: capText(text, budget).text };
  } catch (e) {
    const code = e instanceof TrustError ? e.code : 'TOOL_ERROR';
    const message = e instanceof Error ? e.message : String(e);
    return {
      type: 'tool_result',
      toolUseId: call.id,
      isError: true,
      content: capText(`${code}: ${message}`, budget).text,
    };
  }
}
