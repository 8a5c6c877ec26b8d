// The text a model is streaming for one agent, folded from live events: `delta` fragments add
// up; the agent's next `turn` (the finished answer, now in the chat) or `approval` ends it.

import type { LiveEvent } from './types';

/** Longest preview kept; older text is dropped from the front. */
export const STREAM_PREVIEW_MAX = 20_000;

/** The preview after one event, for `agent`. */
export function foldStream(text: string, event: LiveEvent, agent: string): string {
  if (event.agent !== agent) return text;
  if (event.kind === 'turn' || event.kind === 'approval') return '';
  if (event.kind !== 'delta') return text;
  const piece = (event.data as { text?: unknown } | null)?.text;
  if (typeof piece !== 'string') return text;
  const next = text + piece;
  return next.length > STREAM_PREVIEW_MAX ? next.slice(next.length - STREAM_PREVIEW_MAX) : next;
}
