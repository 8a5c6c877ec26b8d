import type { LoopEntry } from '@trust/agent-runtime/adf';
import { formatLoopNote } from '@trust/agent-runtime/host';
import { LOOP_NOTE_ROLE } from '@trust/agent-runtime/tools';
import type { LoopTurn } from './agent-registry.js';

interface Block {
  type?: unknown;
  text?: unknown;
  name?: unknown;
  id?: unknown;
  input?: unknown;
  toolUseId?: unknown;
  content?: unknown;
  isError?: unknown;
}

/**
 * Turns `adf_loop` rows (provider-neutral message blocks) into the flat turns the studio shows:
 * text as an assistant/user turn, each tool call as its own turn with the exact arguments, each
 * tool result as a `tool` turn named after its call. `seq` stays unique: row seq × 100 + block.
 */
export function loopTurns(entries: readonly LoopEntry[]): LoopTurn[] {
  const names = new Map<string, string>();
  const out: LoopTurn[] = [];
  for (const e of entries) {
    if (e.role === LOOP_NOTE_ROLE) {
      // A note from agent code (adf.loop_inject): shown as the model sees it, framed, never as the owner.
      out.push({ seq: e.seq * 100, role: 'system', content: formatLoopNote(e.content), time: e.createdAt });
      continue;
    }
    const role = e.role === 'assistant' ? 'assistant' : e.role === 'user' ? 'user' : 'system';
    if (typeof e.content === 'string') {
      out.push({ seq: e.seq * 100, role, content: e.content, time: e.createdAt });
      continue;
    }
    const blocks = Array.isArray(e.content)
      ? (e.content as Block[])
      : [{ type: 'text', text: JSON.stringify(e.content) }];
    blocks.forEach((b, i) => {
      const seq = e.seq * 100 + Math.min(i, 99);
      if (b.type === 'text' && typeof b.text === 'string' && b.text !== '') {
        out.push({ seq, role, content: b.text, time: e.createdAt });
      } else if (b.type === 'tool_use') {
        const name = String(b.name);
        names.set(String(b.id), name);
        out.push({
          seq,
          role: 'assistant',
          content: '',
          time: e.createdAt,
          tool: { name, args: b.input, status: 'requested' },
        });
      } else if (b.type === 'tool_result') {
        const name = names.get(String(b.toolUseId)) ?? 'tool';
        out.push({
          seq,
          role: 'tool',
          content: String(b.content ?? ''),
          time: e.createdAt,
          tool: { name, status: b.isError === true ? 'error' : 'done' },
        });
      }
    });
  }
  return out;
}
