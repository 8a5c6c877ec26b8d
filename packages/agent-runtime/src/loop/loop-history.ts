import type { AdfFile } from '../adf/adf-file.js';
import type { LoopEntry } from '../adf/adf-records.js';
import type {
  ContentBlock,
  ModelMessage,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from '../providers/model-provider.js';
import { LOOP_NOTE_ROLE } from '../tools/code-methods.js';
import { LOOP_SUMMARY_ROLE, estimateTokens, formatSummary, parseSummary } from './compaction.js';

/** The conversation as the model sees it, rebuilt from `adf_loop`. */
export interface LoadedConversation {
  readonly messages: ModelMessage[];
  /** The highest `adf_loop` seq read (0 when empty). */
  readonly lastSeq: number;
  /** The last message holds only runtime notes (nothing the owner or the runtime asked the loop to answer). */
  readonly notesOnlyTail: boolean;
  /** The seq of the row each message starts at (a summary head: the summary row's own seq). */
  readonly seqs: number[];
  /** Estimated tokens of `messages` (see compaction.ts). */
  readonly tokens: number;
}

/**
 * How a runtime note (`adf.loop_inject`) is shown to the model: framed as written by agent code,
 * never in the owner's voice.
 */
export function formatLoopNote(content: unknown): string {
  const c = (content ?? {}) as { from?: unknown; text?: unknown };
  const from = typeof c.from === 'string' ? c.from.replace(/[^\w./:-]/g, '_').slice(0, 200) : 'code';
  const text = typeof c.text === 'string' ? c.text : '';
  return (
    `[runtime note from code ${from}] Injected by agent code through adf.loop_inject; ` +
    `not a message from your owner.\n${text}`
  );
}

const toBlocks = (content: string | readonly ContentBlock[]): ContentBlock[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];

/**
 * Rebuilds the provider-neutral conversation from `adf_loop`, reading only the window: the rows
 * from the latest compaction summary's boundary on, headed by that summary (older rows are never
 * read). User and assistant rows are the conversation; runtime notes are attached, as text blocks
 * after the existing content, to the next user message (so a tool_use is always answered first by
 * its tool_result). Notes with no user message after them join the last user message, or form their
 * own user message after a final assistant answer; after an assistant's unanswered tool calls they
 * wait for the results.
 */
/**
 * The window's rows as last read, kept by one agent between activations so that a turn reads only
 * the rows appended since (`adf_loop` is append-only and its seqs are never reused: AUTOINCREMENT).
 * Create one per agent with {@link createWindowCache}; never shared between files.
 */
export interface WindowCache {
  rows: readonly LoopEntry[];
  lastSeq: number;
  /** The latest summary row's seq when the rows were read (0: none). */
  summarySeq: number;
}

/** An empty {@link WindowCache}. */
export function createWindowCache(): WindowCache {
  return { rows: [], lastSeq: 0, summarySeq: 0 };
}

const latestSummary = (adf: AdfFile) =>
  adf.db
    .prepare('SELECT seq, content_json FROM adf_loop WHERE role = ? ORDER BY seq DESC LIMIT 1')
    .get(LOOP_SUMMARY_ROLE) as { seq: number; content_json: string } | undefined;

/**
 * The rows of the window: from the cache plus what was appended since, or read afresh from the
 * latest summary's boundary when the cache cannot be trusted (first read, a new summary, a cleared
 * loop: the cached last row is gone).
 */
function windowRows(adf: AdfFile, cache: WindowCache | undefined): { rows: readonly LoopEntry[]; head?: LoopEntry } {
  if (cache && cache.lastSeq > 0) {
    const still = adf.db.prepare('SELECT 1 FROM adf_loop WHERE seq = ?').get(cache.lastSeq) !== undefined;
    if (still) {
      const added = adf.loop.list({ afterSeq: cache.lastSeq });
      if (!added.some((r) => r.role === LOOP_SUMMARY_ROLE)) {
        const rows = added.length > 0 ? [...cache.rows, ...added] : cache.rows;
        cache.rows = rows;
        cache.lastSeq = rows.at(-1)?.seq ?? cache.lastSeq;
        const head = cache.summarySeq > 0 ? rows.find((r) => r.seq === cache.summarySeq) : undefined;
        return head ? { rows, head } : { rows };
      }
    }
  }
  const h = latestSummary(adf);
  const summary = h ? parseSummary(JSON.parse(h.content_json) as unknown) : undefined;
  const rows = adf.loop.list(summary ? { afterSeq: summary.keepFromSeq - 1 } : {});
  if (cache) {
    cache.rows = rows;
    cache.lastSeq = rows.at(-1)?.seq ?? 0;
    cache.summarySeq = summary && h ? h.seq : 0;
  }
  const head = summary && h ? rows.find((r) => r.seq === h.seq) : undefined;
  return head ? { rows, head } : { rows };
}

export function loadConversation(adf: AdfFile, cache?: WindowCache): LoadedConversation {
  const out: ModelMessage[] = [];
  const seqs: number[] = [];
  let notes: TextBlock[] = [];
  let notesSeq = 0; // the first row of the notes waiting for a message
  let lastSeq = 0;
  // The latest summary is found from the end of the table (rowid order), so the scan stops at it.
  const { rows, head } = windowRows(adf, cache);
  const summary = head ? parseSummary(head.content) : undefined;
  let prefix: TextBlock[] = [];
  let prefixSeq = 0;
  if (head && summary) {
    prefix = [{ type: 'text', text: formatSummary(summary) }];
    prefixSeq = head.seq;
  }
  const push = (m: ModelMessage, seq: number) => {
    if (prefix.length > 0) {
      // The summary stands first: as its own user message before an assistant row, or in front of a user row.
      if (m.role === 'user') m = { role: 'user', content: [...prefix, ...toBlocks(m.content)] };
      else {
        out.push({ role: 'user', content: prefix });
        seqs.push(prefixSeq);
      }
      prefix = [];
      if (m.role === 'user') seq = prefixSeq;
    }
    out.push(m);
    seqs.push(seq);
  };
  for (const row of rows) {
    lastSeq = Math.max(lastSeq, row.seq);
    if (row.role === LOOP_SUMMARY_ROLE) continue;
    if (row.role === LOOP_NOTE_ROLE) {
      if (notes.length === 0) notesSeq = row.seq;
      notes.push({ type: 'text', text: formatLoopNote(row.content) });
      continue;
    }
    if (row.role !== 'user' && row.role !== 'assistant') continue;
    const content = row.content as string | ContentBlock[];
    if (typeof content !== 'string' && !Array.isArray(content)) continue;
    if (row.role === 'user' && notes.length > 0) {
      push({ role: 'user', content: [...toBlocks(content), ...notes] }, notesSeq);
      notes = [];
    } else push({ role: row.role, content }, row.seq);
  }
  let notesOnlyTail = false;
  if (notes.length > 0) {
    const last = out[out.length - 1];
    if (last?.role === 'user') out[out.length - 1] = { role: 'user', content: [...toBlocks(last.content), ...notes] };
    else if (danglingToolUses(out).length === 0) {
      push({ role: 'user', content: notes }, notesSeq);
      notesOnlyTail = true;
    }
  }
  if (prefix.length > 0) {
    out.push({ role: 'user', content: prefix });
    seqs.push(prefixSeq);
  }
  const tokens = out.reduce((n, m) => n + estimateTokens(m), 0);
  return { messages: out, lastSeq, notesOnlyTail, seqs, tokens };
}

/** Rebuilds the provider-neutral conversation from `adf_loop` (see {@link loadConversation}). */
export function loadMessages(adf: AdfFile): ModelMessage[] {
  return loadConversation(adf).messages;
}

/** Tool calls of the last assistant message that never got a result (a crash or restart in between). */
export function danglingToolUses(messages: readonly ModelMessage[]): ToolUseBlock[] {
  const last = messages[messages.length - 1];
  if (last?.role !== 'assistant' || typeof last.content === 'string') return [];
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
    return {
      type: 'tool_result',
      toolUseId: call.id,
      isError: true,
      content:
        `interrupted: the runtime restarted while ${call.name} was in progress; ${what}. ` +
        'Call it again if it is still needed.',
    };
  });
  adf.loop.append({ role: 'user', content: results });
  return results;
}
