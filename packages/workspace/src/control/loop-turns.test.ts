import { describe, expect, it } from 'vitest';
import type { LoopEntry } from '@trust/agent-runtime/adf';
import { LOOP_NOTE_ROLE } from '@trust/agent-runtime/tools';
import { loopTurns } from './loop-turns.js';

const row = (seq: number, role: string, content: unknown): LoopEntry => ({
  seq,
  role,
  content,
  model: null,
  tokens: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('loopTurns', () => {
  it('flattens text, tool calls and tool results, naming each result after its call', () => {
    const turns = loopTurns([
      row(1, 'user', 'read a.txt'),
      row(2, 'assistant', [
        { type: 'text', text: 'reading' },
        { type: 'tool_use', id: 't1', name: 'fs_read', input: { path: 'a.txt' } },
      ]),
      row(3, 'user', [{ type: 'tool_result', toolUseId: 't1', content: 'hello' }]),
    ]);
    expect(turns.map((t) => [t.seq, t.role, t.content, t.tool?.name, t.tool?.status])).toEqual([
      [100, 'user', 'read a.txt', undefined, undefined],
      [200, 'assistant', 'reading', undefined, undefined],
      [201, 'assistant', '', 'fs_read', 'requested'],
      [300, 'tool', 'hello', 'fs_read', 'done'],
    ]);
  });

  it('shows a runtime note from agent code framed as the model sees it, never as the owner', () => {
    const [turn] = loopTurns([row(4, LOOP_NOTE_ROLE, { from: 'lib/watch.js', text: 'disk is 91% full' })]);
    expect(turn?.role).toBe('system');
    expect(turn?.content).toContain('[runtime note from code lib/watch.js]');
    expect(turn?.content).toContain('not a message from your owner');
    expect(turn?.content).toContain('disk is 91% full');
  });
});
