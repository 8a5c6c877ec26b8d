import { describe, expect, it } from 'vitest';
import { STREAM_PREVIEW_MAX, foldStream } from './stream-text';

const ev = (kind: string, agent: string, data: unknown) => ({ kind, agent, data });

describe('foldStream', () => {
  it('adds up the fragments of one agent and ends on its next turn', () => {
    let t = '';
    t = foldStream(t, ev('delta', 'a', { text: 'Hel' }), 'a');
    t = foldStream(t, ev('delta', 'b', { text: 'other agent' }), 'a');
    t = foldStream(t, ev('delta', 'a', { text: 'lo' }), 'a');
    t = foldStream(t, ev('audit', 'a', {}), 'a');
    expect(t).toBe('Hello');
    expect(foldStream(t, ev('turn', 'a', {}), 'a')).toBe('');
    expect(foldStream(t, ev('turn', 'b', {}), 'a')).toBe('Hello');
  });
  it('ignores malformed fragments and keeps only the newest text past the cap', () => {
    expect(foldStream('x', ev('delta', 'a', { text: 5 }), 'a')).toBe('x');
    expect(foldStream('x', ev('delta', 'a', null), 'a')).toBe('x');
    const long = foldStream('a'.repeat(STREAM_PREVIEW_MAX), ev('delta', 'a', { text: 'end' }), 'a');
    expect(long.length).toBe(STREAM_PREVIEW_MAX);
    expect(long.endsWith('end')).toBe(true);
  });
});
