import type { AdfFile } from '../adf/adf-file.js';
import type { ContentBlock, ModelMessage, ToolResultBlock, ToolUseBlock } from '../providers/model-provider.js';

/** Rebuilds the provider-neutral conversation from `adf_loop` rows (user and assistant rows only). */
export function loadMessages(adf: AdfFile): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const row of adf.loop.list()) {
    if (row.role !== 'user' && row.role !== 'assistant') continue;
    const content = row.content as string | ContentBlock[];
    if (typeof content !== 'string' && !Array.isArray(content)) continue;
    out.push({ role: row.role, content });
  }
  return out;
}

/** Tool calls of the last assistant message that never got a result (a crash or restart in between). */
export function danglingToolUses(messages: readonly ModelMessage[]): ToolUseBlock[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant' || typeof last.content === 'string') return [];
  return last.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/**
 * Closes the conversation after a restart: every dangling tool call gets an error result that
 * says what happened to it (its approval task, if any, was reconciled when the file reopened).
 */
export function repairDangling(adf: AdfFile, messages: readonly ModelMessage[]): ToolResultBlock[] {
  const dangling = danglingToolUses(messages);
  if (dangling.length === 0) return [];
  const tasks = adf.tasks.list();
  const results: ToolResultBlock[] = dangling.map((call) => {
    const task = [...tasks].reverse().find((t) => t.tool === call.name && t.origin === 'llm');
    const what = task ? `its approval task ${task.id} is now ${task.status}` : 'it did not complete';
    return { type: 'tool_result', toolUseId: call.id, isError: true, content: `interrupted: the runtime restarted while ${call.name} was in progress; ${what}. Call it again if it is still needed.` };
  });
  adf.loop.append({ role: 'user', content: results });
  return results;
}
