import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf } from '@trust/agent-runtime';
import { defaultAgentConfig } from '@trust/agent-runtime';
import { createScriptedProvider } from '@trust/agent-runtime';
import { createAgentOpener } from './agent-runtime-hooks.js';
import { call } from './control-fixture.test-helper.js';
import { createControlServer, type ControlServer } from './control-server.js';
import { createWorkspaceAgents } from './workspace-agents.js';

// The real loop, gate and approval desk behind the control API: a scripted model asks for the
// restricted fs_write, the owner approves through the API, the tool runs and is audited.
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
const frames: string[] = [];
let stream: ReturnType<typeof request> | undefined;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ws-run-'));
  const config = structuredClone(defaultAgentConfig({ name: 'helper' })) as unknown as {
    tools: { name: string; restricted?: boolean }[];
  };
  config.tools = config.tools.map((t) => (t.name === 'fs_write' ? { ...t, restricted: true } : t));
  createAdf(join(dir, 'helper.adf'), { template: config }).close();
  const provider = createScriptedProvider([
    {
      content: [
        { type: 'text', text: 'I will save it.' },
        { type: 'tool_use', id: 'c1', name: 'fs_write', input: { path: 'plan.md', mode: 'write', content: 'step 1' } },
      ],
    },
    { content: [{ type: 'text', text: 'Saved **plan.md**.' }] },
    {
      content: [
        { type: 'tool_use', id: 'c2', name: 'fs_write', input: { path: 'plan.md', mode: 'append', content: 'step 2' } },
      ],
    },
    { content: [{ type: 'text', text: 'Understood.' }] },
    {
      content: [
        {
          type: 'tool_use',
          id: 'c3',
          name: 'fs_write',
          input: { path: 'plan.md', mode: 'write', content: 'delete everything' },
        },
      ],
    },
    { content: [{ type: 'text', text: 'Written as you edited it.' }] },
  ]);
  agents = createWorkspaceAgents({ dir, open: createAgentOpener({ provider: () => provider }) });
  server = await createControlServer({ agents });
  await new Promise<void>((resolve) => {
    stream = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: '/api/v1/events',
        headers: { host: `127.0.0.1:${server.port}`, authorization: `Bearer ${server.token}` },
      },
      (res) => {
        res.on('data', (c: Buffer) => frames.push(c.toString('utf8')));
        resolve();
      },
    );
    stream.end();
  });
});
afterAll(async () => {
  stream?.destroy();
  await server.close();
  agents.close();
});

const api = async (method: string, path: string, body?: unknown) => {
  const r = await call(server.port, {
    method,
    path: `/api/v1${path}`,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, json: r.json() };
};
const settle = async (pred: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await pred()); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('control API over the real agent runtime', () => {
  it('chat send returns when the loop waits for approval, and the stream announces it', async () => {
    const sent = await api('POST', '/agents/helper/chat', { text: 'save the plan' });
    expect(sent.status).toBe(200);
    expect(sent.json.turns).toContainEqual(
      expect.objectContaining({
        role: 'assistant',
        tool: expect.objectContaining({
          name: 'fs_write',
          args: { path: 'plan.md', mode: 'write', content: 'step 1' },
        }),
      }),
    );
    expect((await api('GET', '/agents/helper')).json.agent).toMatchObject({
      state: 'waiting-approval',
      pendingApprovals: 1,
    });
    const tasks = (await api('GET', '/tasks')).json.tasks;
    expect(tasks).toEqual([
      expect.objectContaining({
        agent: 'helper',
        tool: 'fs_write',
        status: 'pending',
        reason: 'fs_write is restricted: calls from the model loop need your approval',
      }),
    ]);
    await settle(async () => frames.join('').includes('event: approval'));
    expect(frames.join('')).toContain(`"id":"${tasks[0]?.id}"`);
    expect((await api('POST', '/agents/helper/chat', { text: 'again' })).status).toBe(409);
  });

  it('approving runs the tool; the history and the audit chain show it', async () => {
    const task = (await api('GET', '/tasks')).json.tasks[0];
    expect((await api('POST', `/agents/helper/tasks/${task?.id}/approve`, {})).json.task).toMatchObject({
      status: 'approved',
    });
    await settle(async () => (await api('GET', '/agents/helper')).json.agent.state === 'idle');
    const turns = (await api('GET', '/agents/helper/chat')).json.turns;
    expect(
      turns.map((t: { role: string; tool?: { status: string } }) => `${t.role}${t.tool ? `:${t.tool.status}` : ''}`),
    ).toEqual(['user', 'assistant', 'assistant:requested', 'tool:done', 'assistant']);
    expect((await api('GET', '/agents/helper/files/plan.md')).json.file.content).toBe('step 1');
    const audit = (await api('GET', '/agents/helper/audit')).json;
    expect(audit.chain.ok).toBe(true);
    expect(audit.events).toContainEqual(
      expect.objectContaining({ action: 'approval.resolve', target: 'fs_write', decision: 'allow' }),
    );
    expect((await api('POST', `/agents/helper/tasks/${task?.id}/approve`, {})).status).toBe(400);
  });

  it('denying with feedback tells the model and keeps the file unchanged', async () => {
    await api('POST', '/agents/helper/chat', { text: 'add step 2' });
    const task = (await api('GET', '/tasks')).json.tasks.find((t: { status: string }) => t.status === 'pending');
    expect(
      (await api('POST', `/agents/helper/tasks/${task?.id}/deny`, { feedback: 'not now' })).json.task,
    ).toMatchObject({ status: 'denied', feedback: 'not now' });
    await settle(async () => (await api('GET', '/agents/helper')).json.agent.state === 'idle');
    expect((await api('GET', '/agents/helper/files/plan.md')).json.file.content).toBe('step 1');
    const tasks = (await api('GET', '/agents/helper/tasks')).json.tasks;
    expect(tasks.find((t: { id: string }) => t.id === task?.id)).toMatchObject({
      status: 'denied',
      feedback: 'not now',
    });
  });

  it('approving with modified arguments runs the owner version, re-validated by the gate', async () => {
    await api('POST', '/agents/helper/chat', { text: 'rewrite the plan' });
    const task = (await api('GET', '/tasks')).json.tasks.find((t: { status: string }) => t.status === 'pending');
    expect(task?.args).toEqual({ path: 'plan.md', mode: 'write', content: 'delete everything' });
    const edited = { path: 'plan.md', mode: 'write', content: 'step 1, edited by the owner' };
    expect((await api('POST', `/agents/helper/tasks/${task?.id}/approve`, { args: edited })).json.task).toMatchObject({
      status: 'approved',
      args: edited,
    });
    await settle(async () => (await api('GET', '/agents/helper')).json.agent.state === 'idle');
    expect((await api('GET', '/agents/helper/files/plan.md')).json.file.content).toBe('step 1, edited by the owner');
  });
});
