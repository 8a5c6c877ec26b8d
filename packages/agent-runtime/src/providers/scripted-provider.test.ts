import { describe, expect, it } from 'vitest';
import { createScriptedProvider, SCRIPTED_LABEL } from './scripted-provider.js';
import { parseSse, type SseEvent } from './sse.js';

describe('scripted provider', () => {
  it('answers from its queue, infers the stop reason and records requests', async () => {
    const p = createScriptedProvider([
      { content: [{ type: 'tool_use', id: 't1', name: 'fs_read', input: { path: 'a' } }] },
      { content: [{ type: 'text', text: 'done' }] },
    ]);
    expect(p.label).toBe(SCRIPTED_LABEL);
    expect(p.label).toMatch(/scripted/);
    expect((await p.createMessage({ messages: [{ role: 'user', content: 'go' }] })).stopReason).toBe('tool_use');
    expect((await p.createMessage({ messages: [] })).stopReason).toBe('end_turn');
    expect(p.requests).toHaveLength(2);
    await expect(p.createMessage({ messages: [] })).rejects.toHaveTrustCode('PROVIDER_SCRIPT_EXHAUSTED');
  });

  it('accepts functions of the request', async () => {
    const p = createScriptedProvider([
      (req) => ({
        content: [{ type: 'text', text: String(req.messages.length) }],
        stopReason: 'end_turn',
        usage: { inputTokens: 1, outputTokens: 1 },
        model: 'scripted',
      }),
    ]);
    expect((await p.createMessage({ messages: [{ role: 'user', content: 'a' }] })).content).toEqual([
      { type: 'text', text: '1' },
    ]);
  });
});

describe('SSE parser', () => {
  const stream = (chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
        c.close();
      },
    });
  it(
    'handles split chunks, CRLF, comments, multi-line data and named events; ' + 'drops an unterminated last event',
    async () => {
      const events: SseEvent[] = [];
      for await (const e of parseSse(
        stream(['event: a\r\ndata: 1\r\n', '\r\n: comment\n', 'data: x\ndata: y\n\n', 'data: tail']),
      ))
        events.push(e);
      expect(events).toEqual([
        { event: 'a', data: '1' },
        { event: 'message', data: 'x\ny' },
      ]);
    },
  );
  it('bounds one event', async () => {
    const it = parseSse(stream([`data: ${'x'.repeat(100)}\n\n`]), 10);
    await expect(it.next()).rejects.toThrow(/larger than 10 bytes/);
  });
});
