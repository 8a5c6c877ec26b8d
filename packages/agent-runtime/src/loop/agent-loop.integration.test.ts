import { spawn } from 'node:child_process';
import type { agentConfigSchema } from '../config/agent-config-schema.js';
import type { z } from 'zod';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allow, deny } from '@trust/core';
import type { EgressHttpRequest } from '@trust/core';
import { createEgressClient } from '@trust/egress';
import type { EgressClient } from '@trust/egress';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import type { Approver } from '../gate/approvals.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import type { ModelRequest, ToolResultBlock } from '../providers/model-provider.js';
import type { FetchClient } from '../tools/fetch-tool.js';
import { openAgent } from './agent.js';

// A scripted conversation through the real gate, tools, code sandbox and egress client, with a
// loopback peer in a child process. The control API port is protected in the egress guard.
let peer: ChildProcess;
let peerPort = 0;
let egress: EgressClient;
const CONTROL_PORT = 7385;

beforeAll(async () => {
  peer = spawn(
    process.execPath,
    [
      '-e',
      `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'text/plain'); s.end('peer ` +
        `says hi from ' + q.url); }).listen(0, '127.0.0.1', function () { console.log('PORT ' + ` +
        `this.address().port); })`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  peerPort = await new Promise<number>((resolve, reject) => {
    peer.once('exit', (c) => reject(new Error(`peer exited ${c}`)));
    peer.stdout!.on('data', (d: Buffer) => {
      const m = /PORT (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
  });
  egress = createEgressClient({
    policy: {
      name: 'loopback-peer',
      authorizeHttp: (r: EgressHttpRequest) =>
        r.host === '127.0.0.1' ? allow('loopback-peer') : deny('EGRESS_POLICY_DENIED', 'only the test peer'),
    },
    guard: { mode: 'default', protectedPorts: [CONTROL_PORT] },
  });
}, 60_000);

afterAll(async () => {
  await egress?.close();
  peer?.kill('SIGTERM');
});

function agentFile(mutate: (c: z.input<typeof agentConfigSchema>) => void = () => {}): string {
  const path = join(mkdtempSync(join(tmpdir(), 'agent-loop-')), 'agent.adf');
  const config: z.input<typeof agentConfigSchema> = structuredClone(defaultAgentConfig({ name: 'loop-test' }));
  config.tools = config.tools?.map((t) => (t.name === 'fs_write' ? { ...t, restricted: true } : t));
  mutate(config);
  const adf = createAdf(path, { template: config });
  adf.files.write('notes.md', 'buy milk');
  adf.close();
  return path;
}

const lastResults = (req: ModelRequest): ToolResultBlock[] => {
  const m = req.messages[req.messages.length - 1]!;
  return typeof m.content === 'string' ? [] : (m.content.filter((b) => b.type === 'tool_result') as ToolResultBlock[]);
};
const use = (id: string, name: string, input: Record<string, unknown>) => ({
  content: [{ type: 'tool_use' as const, id, name, input }],
});
const fetchClients = () => ({ fetch: { default: egress as unknown as FetchClient } });

describe('scripted conversation through the loop', { timeout: 60_000 }, () => {
  it('reads a file, fetches from a peer, is refused until approval, gets its ask answered', async () => {
    const path = agentFile();
    const seen: string[] = [];
    const provider = createScriptedProvider([
      use('t1', 'fs_read', { path: 'notes.md' }),
      (req) => {
        seen.push(lastResults(req)[0]!.content);
        return {
          ...use('t2', 'sys_fetch', { url: `http://127.0.0.1:${peerPort}/hello` }),
          stopReason: 'tool_use',
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'scripted',
        };
      },
      (req) => {
        seen.push(lastResults(req)[0]!.content);
        return {
          ...use('t3', 'fs_write', { path: 'todo.md', mode: 'write', content: 'milk' }),
          stopReason: 'tool_use',
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'scripted',
        };
      },
      (req) => {
        seen.push(lastResults(req)[0]!.content);
        return {
          ...use('t4', 'fs_write', { path: 'todo.md', mode: 'write', content: 'milk, please' }),
          stopReason: 'tool_use',
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'scripted',
        };
      },
      (req) => {
        seen.push(lastResults(req)[0]!.content);
        return {
          ...use('t5', 'ask', { question: 'which shop?' }),
          stopReason: 'tool_use',
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'scripted',
        };
      },
      (req) => {
        seen.push(lastResults(req)[0]!.content);
        return {
          content: [{ type: 'text', text: 'all done' }],
          stopReason: 'end_turn',
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'scripted',
        };
      },
    ]);
    const answers = ['deny', 'approve'];
    const approver: Approver = {
      request: async () =>
        answers.shift() === 'approve' ? { decision: 'approve' } : { decision: 'deny', feedback: 'not yet' },
    };
    const agent = openAgent(path, {
      provider,
      approver,
      egress: fetchClients(),
      onEvent: (e) => {
        if (e.kind === 'ask') queueMicrotask(() => agent.answer('the corner shop'));
      },
    });
    const out = await agent.send('plan my shopping');
    expect(out).toMatchObject({ stopReason: 'end_turn', text: 'all done', turns: 6 });
    expect(seen[0]).toContain('buy milk');
    expect(seen[1]).toContain('peer says hi from /hello');
    expect(seen[2]).toMatch(/TOOL_APPROVAL_DENIED.*not yet/);
    expect(seen[3]).toContain('"path":"todo.md"');
    expect(seen[4]).toContain('the corner shop');
    expect(agent.adf.files.read('todo.md')?.content.toString()).toBe('milk, please');
    expect(agent.adf.tasks.list().map((t) => [t.tool, t.status])).toEqual([
      ['fs_write', 'denied'],
      ['fs_write', 'completed'],
    ]);
    const rows = agent.adf.loop.list();
    expect(rows.filter((r) => r.role === 'assistant')).toHaveLength(6);
    expect(rows[0]).toMatchObject({ role: 'user', content: 'plan my shopping' });
    expect(rows.find((r) => r.role === 'assistant')?.model).toBe('scripted:scripted');
    agent.close();
  });

  it('advertises only visible enabled tools, with JSON schemas', async () => {
    const provider = createScriptedProvider([{ content: [{ type: 'text', text: 'ok' }] }]);
    const agent = openAgent(agentFile(), { provider, egress: fetchClients() });
    await agent.send('hi');
    const names = provider.requests[0]!.tools!.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['fs_read', 'fs_write', 'sys_code', 'sys_fetch', 'db_query']));
    for (const hidden of ['fs_delete', 'adf_shell', 'ws_connect', 'db_execute']) expect(names).not.toContain(hidden);
    expect(provider.requests[0]!.tools!.find((t) => t.name === 'fs_read')!.inputSchema).toMatchObject({
      type: 'object',
      required: ['path'],
    });
    agent.close();
  });

  it('sys_fetch cannot reach the protected control port, even on loopback', async () => {
    const provider = createScriptedProvider([
      use('f1', 'sys_fetch', { url: `http://127.0.0.1:${CONTROL_PORT}/agents` }),
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const agent = openAgent(agentFile(), { provider, egress: fetchClients() });
    await agent.send('go');
    expect(lastResults(provider.requests[1]!)[0]).toMatchObject({
      isError: true,
      content: expect.stringContaining('EGRESS_PROTECTED_PORT'),
    });
    agent.close();
  });

  it('fetch middleware fails closed', async () => {
    const path = agentFile((c) => {
      c.security!.fetch_middleware = [{ lambda: 'mw.js:check' }];
    });
    const provider = createScriptedProvider([
      use('f1', 'sys_fetch', { url: `http://127.0.0.1:${peerPort}/x` }),
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const agent = openAgent(path, { provider, egress: fetchClients() });
    agent.adf.files.write('mw.js', 'function check(ev) { throw new Error("boom"); }');
    agent.adf.files.setAuthorized('mw.js', true, 'owner');
    await agent.send('go');
    expect(lastResults(provider.requests[1]!)[0]).toMatchObject({
      isError: true,
      content: expect.stringContaining('MIDDLEWARE_FAILED'),
    });
    agent.close();
  });

  it('fetch middleware from an unauthorized file is refused, and an authorized one may rewrite', async () => {
    const path = agentFile((c) => {
      c.security!.fetch_middleware = [{ lambda: 'mw.js:check' }];
    });
    const provider = createScriptedProvider([
      use('f1', 'sys_fetch', { url: `http://127.0.0.1:${peerPort}/original` }),
      use('f2', 'sys_fetch', { url: `http://127.0.0.1:${peerPort}/original` }),
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const agent = openAgent(path, { provider, egress: fetchClients() });
    agent.adf.files.write(
      'mw.js',
      'function check(ev) { return { value: { ...ev.value, url: ev.value.url.replace("original", "rewritten") } }; }',
    );
    const firstTurn = agent.send('go');
    await firstTurn;
    expect(lastResults(provider.requests[1]!)[0]!.content).toContain('MIDDLEWARE_UNAUTHORIZED');
    expect(lastResults(provider.requests[2]!)[0]!.content).toContain('MIDDLEWARE_UNAUTHORIZED');
    agent.adf.files.setAuthorized('mw.js', true, 'owner');
    provider.push(use('f3', 'sys_fetch', { url: `http://127.0.0.1:${peerPort}/original` }), {
      content: [{ type: 'text', text: 'ok' }],
    });
    await agent.send('again');
    expect(lastResults(provider.requests[4]!)[0]!.content).toContain('peer says hi from /rewritten');
    agent.close();
  });
});

describe('loop limits and modes', { timeout: 60_000 }, () => {
  it('is not autonomous: run() with no human input does nothing', async () => {
    const provider = createScriptedProvider([{ content: [{ type: 'text', text: 'should not run' }] }]);
    const agent = openAgent(agentFile(), { provider });
    expect(await agent.run()).toMatchObject({ stopReason: 'idle', turns: 0 });
    expect(provider.requests).toHaveLength(0);
    agent.close();
  });

  it('stops at limits.max_active_turns', async () => {
    const provider = createScriptedProvider(Array.from({ length: 5 }, (_v, i) => use(`l${i}`, 'fs_list', {})));
    const agent = openAgent(
      agentFile((c) => {
        c.limits!.max_active_turns = 2;
      }),
      { provider },
    );
    expect(await agent.send('loop')).toMatchObject({ stopReason: 'turn_limit', turns: 2 });
    agent.close();
  });

  it('caps tool results at limits.max_tool_result_tokens', async () => {
    const provider = createScriptedProvider([
      use('r1', 'fs_read', { path: 'big.txt' }),
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const agent = openAgent(
      agentFile((c) => {
        c.limits!.max_tool_result_tokens = 10;
      }),
      { provider },
    );
    agent.adf.files.write('big.txt', 'x'.repeat(5000));
    await agent.send('read');
    const content = lastResults(provider.requests[1]!)[0]!.content;
    expect(content.length).toBeLessThan(200);
    expect(content).toContain('[truncated');
    agent.close();
  });

  it('stops cleanly on abort while a tool waits', async () => {
    const provider = createScriptedProvider([use('a1', 'ask', { question: 'never answered' })]);
    const agent = openAgent(agentFile(), {
      provider,
      onEvent: (e) => {
        if (e.kind === 'ask') queueMicrotask(() => agent.abort());
      },
    });
    const out = await agent.send('go');
    expect(out.stopReason).toBe('aborted');
    expect(agent.state()).toBe('idle');
    agent.close();
  });

  it('agent code calls tools with origin code: restricted tools are refused, free ones work', async () => {
    const provider = createScriptedProvider([
      use('c1', 'sys_code', {
        code:
          'const n = (await adf.fs_read({ path: "notes.md" })).content; try { await adf.fs_write({ path: "x", ' +
          'mode: "write", content: n }); return "wrote"; } catch (e) { return [n, e.code]; }',
      }),
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const agent = openAgent(agentFile(), { provider });
    await agent.send('code');
    expect(JSON.parse(lastResults(provider.requests[1]!)[0]!.content)).toMatchObject({
      ok: true,
      value: ['buy milk', 'REQUIRES_AUTHORIZED_CODE'],
    });
    agent.close();
  });

  it('sys_lambda on an authorized file needs approval from the loop, then runs authorized', async () => {
    const provider = createScriptedProvider([
      use('s1', 'sys_lambda', { target: 'admin.js:run', args: { text: 'hi' } }),
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const requests: string[] = [];
    const agent = openAgent(agentFile(), {
      provider,
      approver: {
        request: async (r) => {
          requests.push(r.reason);
          return { decision: 'approve' };
        },
      },
    });
    agent.adf.files.write(
      'admin.js',
      'async function run(a) { await adf.fs_write({ path: "admin-out.txt", mode: "write", content: a.text ' +
        '}); return "ok"; }',
    );
    agent.adf.files.setAuthorized('admin.js', true, 'owner');
    await agent.send('run admin');
    expect(requests).toEqual(['authorized-target']);
    expect(agent.adf.files.read('admin-out.txt')?.content.toString()).toBe('hi');
    agent.close();
  });

  it('adf_shell runs through the same gate (disabled tool → 126)', async () => {
    const path = agentFile((c) => {
      c.tools = c.tools!.map((t: { name: string }) =>
        t.name === 'adf_shell' ? { name: 'adf_shell', enabled: true, visible: true } : t,
      );
    });
    const provider = createScriptedProvider([
      use('sh1', 'adf_shell', { command: 'cat notes.md | wc -c; rm notes.md' }),
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const agent = openAgent(path, { provider });
    await agent.send('shell');
    const r = JSON.parse(lastResults(provider.requests[1]!)[0]!.content);
    // the whole script is refused before its first command runs
    expect(r).toMatchObject({ exitCode: 126, stdout: '' });
    expect(agent.adf.files.read('notes.md')).toBeDefined();
    agent.close();
  });
});
