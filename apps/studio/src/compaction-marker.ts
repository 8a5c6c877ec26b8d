import type { LoopTurn } from './types';

/** What the chat view shows for a compaction summary row of the loop. */
export interface CompactionMarker {
  /** `model`: the agent's model summarised; `truncation`: the runtime only marked the cut. */
  readonly kind: 'model' | 'truncation';
  /** Messages the summary replaces in the window the model is sent. */
  readonly messages: number;
  /** The first loop row the window kept after this compaction. */
  readonly keepFromSeq: number;
  /** The summary text (untrusted: rendered as plain text). */
  readonly text: string;
}

/**
 * Recognises a compaction summary among the loop turns: the runtime writes it to `adf_loop` as a
 * versioned JSON row (`{ v: 1, kind, text, keepFromSeq, messages }`), which the control API passes
 * on as a system turn. Anything else (or a malformed row) is `undefined` and shown as before.
 *
 * @example
 * compactionOf({ seq: 500, role: 'system', content: '{"v":1,"kind":"truncation",...}', time: '' });
 */
export function compactionOf(turn: LoopTurn): CompactionMarker | undefined {
  if (turn.role !== 'system' || !turn.content.startsWith('{"v":1,')) return undefined;
  try {
    const c = JSON.parse(turn.content) as Partial<CompactionMarker> & { v?: unknown };
    if (c.v !== 1 || (c.kind !== 'model' && c.kind !== 'truncation') || typeof c.text !== 'string') return undefined;
    if (!Number.isSafeInteger(c.keepFromSeq) || !Number.isSafeInteger(c.messages)) return undefined;
    return { kind: c.kind, messages: c.messages!, keepFromSeq: c.keepFromSeq!, text: c.text };
  } catch {
    return undefined;
  }
}
