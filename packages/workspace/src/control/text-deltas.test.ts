import { describe, expect, it } from 'vitest';
import { createScriptedProvider } from '@trust/agent-runtime';
import { DELTA_MAX_CHARS, withTextDeltas } from './text-deltas.js';

describe('withTextDeltas', () => {
  it('forwards each streamed fragment, keeps the caller callback and the answer unchanged', async () => {
    const inner = createScriptedProvider([
      {
        content: [
          { type: 'text', text: 'Hello ' },
          { type: 'text', text: 'world' },
        ],
      },
    ]);
    const seen: string[] = [];
    const own: string[] = [];
    const p = withTextDeltas(inner, (t) => seen.push(t));
    expect([p.kind, p.label, p.model]).toEqual([inner.kind, inner.label, inner.model]);
    const res = await p.createMessage({ messages: [{ role: 'user', content: 'hi' }], onTextDelta: (t) => own.push(t) });
    expect(seen).toEqual(['Hello ', 'world']);
    expect(own).toEqual(['Hello ', 'world']);
    expect(res.content).toEqual([
      { type: 'text', text: 'Hello ' },
      { type: 'text', text: 'world' },
    ]);
  });

  it('cuts a long fragment into bounded pieces', async () => {
    const text = 'x'.repeat(DELTA_MAX_CHARS * 2 + 1);
    const seen: string[] = [];
    await withTextDeltas(createScriptedProvider([{ content: [{ type: 'text', text }] }]), (t) =>
      seen.push(t),
    ).createMessage({ messages: [{ role: 'user', content: 'hi' }] });
    expect(seen.map((s) => s.length)).toEqual([DELTA_MAX_CHARS, DELTA_MAX_CHARS, 1]);
    expect(seen.join('')).toBe(text);
  });
});
