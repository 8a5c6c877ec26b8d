import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import type { ToolResultBlock } from '../providers/model-provider.js';
import { openAgent } from './agent.js';

// A real process restart in the middle of an approval: a child process (running the built
// package) blocks on a restricted tool and is killed with SIGKILL; a fresh runtime reopens the
// file, reconciles the orphaned task, closes the interrupted call and carries on.
const child = fileURLToPath(new URL('./fixtures/restart-child.mjs', import.meta.url));
const built = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

describe('restart mid-approval', () => {
  it('reconciles the task and continues the conversation after SIGKILL', { timeout: 120_000 }, async () => {
    expect(existsSync(built), 'the package must be built (pnpm test builds it first)').toBe(true);
    const path = join(mkdtempSync(join(tmpdir(), 'agent-restart-')), 'agent.adf');
    const config = structuredClone(defaultAgentConfig()) as unknown as { tools: Array<{ name: string }> };
    config.tools = config.tools.map((t) => (t.name === 'fs_write' ? { ...t, restricted: true } : t));
    createAdf(path, { template: config }).close();

    const proc = spawn(process.execPath, [child, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const taskId = await new Promise<string>((resolve, reject) => {
      proc.once('exit', (c) => reject(new Error(`child exited early (${c}): ${stderr}`)));
      proc.stdout!.on('data', (d: Buffer) => {
        const m = /PENDING (\S+)/.exec(d.toString());
        if (m) resolve(m[1]!);
      });
    });
    proc.removeAllListeners('exit');
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;

    const provider = createScriptedProvider([
      {
        content: [
          {
            type: 'tool_use',
            id: 'w2',
            name: 'fs_write',
            input: { path: 'out.txt', mode: 'write', content: 'second try' },
          },
        ],
      },
      { content: [{ type: 'text', text: 'written' }] },
    ]);
    const agent = openAgent(path, { provider, approver: { request: async () => ({ decision: 'approve' }) } });
    expect(agent.adf.tasks.get(taskId)?.status).toBe('cancelled');
    expect(agent.adf.files.read('out.txt')).toBeUndefined();
    const out = await agent.run();
    expect(out).toMatchObject({ stopReason: 'end_turn', text: 'written' });
    const first = provider.requests[0]!.messages.at(-1)!.content as ToolResultBlock[];
    expect(first[0]).toMatchObject({ type: 'tool_result', toolUseId: 'w1', isError: true });
    expect(first[0]!.content).toContain(`approval task ${taskId} is now cancelled`);
    expect(agent.adf.files.read('out.txt')?.content.toString()).toBe('second try');
    expect(agent.adf.tasks.list().map((t) => t.status)).toEqual(['cancelled', 'completed']);
    agent.close();
  });
});
