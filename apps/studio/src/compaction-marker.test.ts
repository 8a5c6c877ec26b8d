import { describe, expect, it } from 'vitest';
import { compactionOf } from './compaction-marker';

const turn = (content: string, role: 'system' | 'user' = 'system') => ({ seq: 100, role, content, time: '' });

describe('compactionOf', () => {
  it('recognises a compaction summary row', () => {
    const row = { v: 1, kind: 'model', text: 'so far: <b>x</b>', keepFromSeq: 42, messages: 17, tokens: 900 };
    expect(compactionOf(turn(JSON.stringify(row)))).toEqual({
      kind: 'model',
      messages: 17,
      keepFromSeq: 42,
      text: 'so far: <b>x</b>',
    });
  });

  it.each([
    ['a user turn', turn('{"v":1,"kind":"model","text":"t","keepFromSeq":1,"messages":1}', 'user')],
    ['another version', turn('{"v":2,"kind":"model","text":"t","keepFromSeq":1,"messages":1}')],
    ['an unknown kind', turn('{"v":1,"kind":"other","text":"t","keepFromSeq":1,"messages":1}')],
    ['malformed JSON', turn('{"v":1,')],
    ['plain text', turn('hello')],
  ])('leaves %s alone', (_what, t) => {
    expect(compactionOf(t)).toBeUndefined();
  });
});
