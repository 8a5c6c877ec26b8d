import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { openAgent } from './agent.js';

function file(autonomous = false): string {
  const path = join(mkdtempSync(join(tmpdir(), 'timers-')), 'a.adf');
  const config = structuredClone(defaultAgentConfig()) as unknown as {
    tools: Array<{ name: string }>;
    autonomous: boolean;
  };
  config.tools = config.tools.map((t) => (t.name === 'fs_write' ? { ...t, restricted: true } : t));
  config.autonomous = autonomous;
  createAdf(path, { template: config }).close();
  return path;
}

describe('timer firing', () => {
  it('system timers run their lambda with the file’s own authorization, once', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const agent = openAgent(file(), {
      provider: createScriptedProvider(),
      clock: () => now,
      approver: { request: async () => ({ decision: 'deny', feedback: 'not now' }) },
    });
    agent.adf.files.write(
      'jobs.js',
      'async function tick(ev) { await adf.fs_write({ path: "log.txt", mode: "append", content: ev.payload + ' +
        '";" }); return 1; }',
    );
    agent.adf.files.write(
      'plain.js',
      'async function tick(ev) { await adf.fs_write({ path: "plain.txt", mode: "write", content: "x" }); }',
    );
    agent.adf.files.setAuthorized('jobs.js', true, 'owner');
    const beat = { kind: 'interval', ms: 60_000, scope: 'system', lambda: 'jobs.js:tick', payload: 'beat' };
    // Pointing a system timer at an authorized file is like calling it: the model needs approval
    // (none is given here), unauthorized code is refused, the owner may.
    await expect(agent.gate.call('sys_set_timer', beat, { origin: 'llm' })).rejects.toHaveTrustCode(
      'TOOL_APPROVAL_DENIED',
    );
    await expect(agent.gate.call('sys_set_timer', beat, { origin: 'code' })).rejects.toHaveTrustCode(
      'REQUIRES_AUTHORIZED_CALLER',
    );
    expect(agent.adf.timers.list()).toEqual([]);
    await agent.gate.call('sys_set_timer', beat, { origin: 'owner' });
    await agent.gate.call(
      'sys_set_timer',
      { kind: 'delay', ms: 0, scope: 'system', lambda: 'plain.js:tick' },
      { origin: 'llm' },
    );
    await agent.gate.call('sys_set_timer', { kind: 'delay', ms: 0, payload: 'wake up' }, { origin: 'llm' });
    now = new Date('2026-01-01T00:01:00Z');
    const fired = await agent.fireDueTimers();
    expect(fired.map((f) => [f.scope, f.outcome])).toEqual([
      ['system', 'ran'],
      ['system', 'failed'],
      ['agent', 'skipped'],
    ]);
    expect(fired[1]!.detail).toContain('REQUIRES_AUTHORIZED_CODE');
    expect(agent.adf.files.read('log.txt')?.content.toString()).toBe('beat;');
    expect(agent.adf.files.read('plain.txt')).toBeUndefined();
    expect(await agent.fireDueTimers()).toEqual([]);
    now = new Date('2026-01-01T00:02:00Z');
    expect((await agent.fireDueTimers()).map((f) => f.outcome)).toEqual(['ran']);
    expect(agent.adf.files.read('log.txt')?.content.toString()).toBe('beat;beat;');
    agent.close();
  });

  it('agent timers wake the loop only in autonomous mode', async () => {
    const provider = createScriptedProvider([{ content: [{ type: 'text', text: 'awake' }] }]);
    const agent = openAgent(file(true), { provider });
    await agent.gate.call('sys_set_timer', { kind: 'delay', ms: 0, payload: 'standup' }, { origin: 'llm' });
    expect((await agent.fireDueTimers()).map((f) => f.outcome)).toEqual(['woke']);
    expect(provider.requests[0]!.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringContaining('standup'),
    });
    agent.close();
  });
});
