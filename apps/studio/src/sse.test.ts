import { describe, expect, it } from 'vitest';
import { parseSseFrames } from './sse';

describe('parseSseFrames', () => {
  it('parses complete frames and keeps the unfinished tail', () => {
    const { events, rest } = parseSseFrames(
      ': connected\n\nid: 1\nevent: approval\ndata: {"agent":"a1","data":{"tool":"fs_write"}}\n\nid: 2\nevent: tu',
    );
    expect(events).toEqual([{ kind: 'approval', agent: 'a1', data: { tool: 'fs_write' } }]);
    expect(rest).toBe('id: 2\nevent: tu');
  });

  it.each([
    ['comment only', ': keep-alive\n\n'],
    ['no data', 'event: turn\n\n'],
    ['not JSON', 'event: turn\ndata: <script>\n\n'],
    ['no agent', 'event: turn\ndata: {"data":1}\n\n'],
  ])('skips a frame with %s', (_n, text) => {
    expect(parseSseFrames(text)).toEqual({ events: [], rest: '' });
  });
});
