import type { LiveEvent } from './types';

/**
 * Splits a server-sent-events buffer into complete frames. Returns the parsed events and the
 * unfinished tail to keep for the next chunk. Comments (`: keep-alive`) and frames without
 * `event` or `data` are skipped; a frame whose data is not JSON is skipped, never thrown.
 */
export function parseSseFrames(buffer: string): { events: LiveEvent[]; rest: string } {
  const events: LiveEvent[] = [];
  let rest = buffer;
  for (let cut = rest.indexOf('\n\n'); cut >= 0; cut = rest.indexOf('\n\n')) {
    const frame = rest.slice(0, cut);
    rest = rest.slice(cut + 2);
    const kind = /^event: (.*)$/m.exec(frame)?.[1];
    const data = /^data: (.*)$/m.exec(frame)?.[1];
    if (kind === undefined || data === undefined) continue;
    try {
      const parsed = JSON.parse(data) as { agent?: unknown; data?: unknown };
      if (typeof parsed.agent === 'string') events.push({ kind, agent: parsed.agent, data: parsed.data });
    } catch {
      // A malformed frame is dropped; the next reload of the view shows the truth anyway.
    }
  }
  return { events, rest };
}
