import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMcpLineReader } from './mcp-line-reader.js';

const collect = (maxLineBytes?: number) => {
  const messages: JSONRPCMessage[] = [];
  const errors: Array<{ code: string; fatal: boolean }> = [];
  // No time slicing here: these tests are about framing (slicing has its own test below).
  const reader = createMcpLineReader({
    sliceMs: Number.POSITIVE_INFINITY,
    ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
    onMessage: (m) => messages.push(m),
    onError: (e, fatal) => errors.push({ code: e.code, fatal }),
  });
  return { reader, messages, errors };
};
const line = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n`;

describe('the bounded MCP line reader', () => {
  it('reads lines split across chunks and several lines in one chunk', () => {
    const { reader, messages, errors } = collect();
    const two = line(1) + line(2);
    reader.push(Buffer.from(two.slice(0, 7)));
    reader.push(Buffer.from(two.slice(7) + line(3).slice(0, 5)));
    reader.push(Buffer.from(`${line(3).slice(5, -1)}\r\n`));
    expect(messages.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
    expect(errors).toEqual([]);
  });

  it('skips a line that is no JSON-RPC, and keeps reading', () => {
    const { reader, messages, errors } = collect();
    reader.push(Buffer.from(`not json\n{"hello":1}\n${line(4)}`));
    expect(messages).toHaveLength(1);
    expect(errors).toEqual([
      { code: expect.toBeTrustCode('MCP_MESSAGE_INVALID'), fatal: false },
      { code: expect.toBeTrustCode('MCP_MESSAGE_INVALID'), fatal: false },
    ]);
  });

  it('refuses a line over the limit without holding it, then takes no more input', () => {
    const { reader, messages, errors } = collect(1024);
    for (let i = 0; i < 4; i++) reader.push(Buffer.alloc(300, 0x61));
    expect(errors).toEqual([{ code: expect.toBeTrustCode('MCP_LINE_TOO_LONG'), fatal: true }]);
    expect(reader.pending()).toBe(0);
    reader.push(Buffer.from(line(5)));
    expect(messages).toEqual([]);
  });

  it('refuses a long line that ends within the chunk too', () => {
    const { reader, errors } = collect(10);
    reader.push(Buffer.from(line(1)));
    expect(errors).toEqual([{ code: expect.toBeTrustCode('MCP_LINE_TOO_LONG'), fatal: true }]);
  });

  it('never throws out of push, whatever the handlers do', () => {
    const reader = createMcpLineReader({
      onMessage: () => {
        throw new Error('handler bug');
      },
      onError: () => {
        throw new Error('reporter bug');
      },
    });
    expect(() => reader.push(Buffer.from(`${line(1)}[[[[\n`))).not.toThrow();
  });
});

describe('the line reader under a flood', () => {
  it('parses a slice per turn of the event loop and says when it is busy', async () => {
    const ids: number[] = [];
    const busy: boolean[] = [];
    const reader = createMcpLineReader({
      sliceMs: 0,
      onMessage: (m) => ids.push((m as { id: number }).id),
      onError: () => undefined,
      onBusy: (b) => busy.push(b),
    });
    reader.push(Buffer.from(line(1) + line(2) + line(3)));
    expect(ids).toEqual([1]);
    expect(busy).toEqual([true]);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(ids).toEqual([1, 2, 3]);
    expect(busy).toEqual([true, false]);
  });
});
