import { describe, expect, it } from 'vitest';
import { demoAnswer } from './demo-workspace.js';

describe('demoAnswer', () => {
  it('asks to save a user message with fs_write, then reports the tool result; always labelled DEMO', () => {
    const ask = demoAnswer({ messages: [{ role: 'user', content: 'buy milk' }] });
    expect(ask.stopReason).toBe('tool_use');
    expect(ask.content).toContainEqual(
      expect.objectContaining({
        type: 'tool_use',
        name: 'fs_write',
        input: { path: 'notes.md', mode: 'append', content: 'buy milk\n' },
      }),
    );
    expect(JSON.stringify(ask.content)).toContain('DEMO');
    const done = demoAnswer({
      messages: [{ role: 'user', content: [{ type: 'tool_result', toolUseId: 'x', content: 'ok' }] }],
    });
    expect(done.stopReason).toBe('end_turn');
    expect(JSON.stringify(done.content)).toContain('Saved');
    const failed = demoAnswer({
      messages: [
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'x', content: 'denied by owner', isError: true }] },
      ],
    });
    expect(JSON.stringify(failed.content)).toContain('did not happen');
  });
});
