import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf } from '@trust/agent-runtime';
import { defaultAgentConfig } from '@trust/agent-runtime';
import type { TimerScheduler } from '@trust/agent-runtime';
import { createScriptedProvider } from '@trust/agent-runtime';
import { createAgentOpener } from './agent-runtime-hooks.js';
import { call } from './control-fixture.test-helper.js';
import { createControlServer, type ControlServer } from './control-server.js';
import { createWorkspaceAgents } from './workspace-agents.js';

// POST …/trigger and POST …/start through the real control server and the real agent runtime.
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
const scheduled: number[] = [];
const cleared: unknown[] = [];
const scheduler: TimerScheduler = {
  setTimeout: (_fn, ms) => scheduled.push(ms),
  clearTimeout: (h) => {
    cleared.push(h);
  },
};

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ws-trigger-'));
  const config = structuredClone(defaultAgentConfig({ name: 'hooked' })) as unknown as { triggers: unknown[] };
  config.triggers = [
    { type: 'on_external', scope: 'system', lambda: 'hooks.js:onCi', filter: { source: 'ci' } },
    { type: 'on_external', scope: 'agent', filter: { source: 'ci|webhook' } },
  ];
  const adf = createAdf(join(dir, 'hooked.adf'), { template: config });
  adf.files.write(
    'hooks.js',
    'async function onCi(ev) { await adf.fs_write({ path: "builds.txt", mode: "append", ' +
      'content: ev.data.source + ":" + ev.data.payload.build + ";" }); return "ok"; }',
  );
  adf.timers.add({
    schedule: { kind: 'delay', ms: 0 },
    nextWakeAt: '2099-01-01T00:00:00.000Z',
    payload: 'later',
    scope: ['agent'],
  });
  adf.close();
  agents = createWorkspaceAgents({
    dir,
    open: createAgentOpener({ provider: () => createScriptedProvider(), scheduler }),
  });
  server = await createControlServer({ agents });
});
afterAll(async () => {
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

describe('POST /agents/:id/trigger over the real runtime', () => {
  it('fires the on_external triggers whose source matches and returns what ran', async () => {
    const res = await api('POST', '/agents/hooked/trigger', { source: 'ci', payload: { build: 7 } });
    expect(res.status).toBe(200);
    expect(res.json.result).toEqual({
      source: 'ci',
      fired: [
        { index: 0, type: 'on_external', scope: 'system', outcome: 'ran', detail: 'hooks.js:onCi completed', depth: 0 },
        // autonomous mode is off by default: the agent-scope trigger does not start the loop
        {
          index: 1,
          type: 'on_external',
          scope: 'agent',
          outcome: 'skipped',
          code: expect.toBeTrustCode('TRIGGER_NOT_AUTONOMOUS'),
          detail: 'autonomous mode is off: agent-scope triggers do not start the loop',
          depth: 0,
        },
      ],
    });
    expect((await api('GET', '/agents/hooked/files/builds.txt')).json.file.content).toBe('ci:7;');
    expect((await api('POST', '/agents/hooked/trigger', { source: 'github' })).json.result).toEqual({
      source: 'github',
      fired: [],
    });
    const audit = (await api('GET', '/agents/hooked/audit')).json;
    expect(audit.chain.ok).toBe(true);
    expect(
      audit.events
        .filter((e: { action: string }) => e.action === 'trigger.fire')
        .map((e: { target: string; principal: { kind: string } }) => [e.target, e.principal.kind]),
    ).toEqual([
      ['on_external#0', 'code'],
      ['on_external#1', 'llm'],
    ]);
    // Nothing the trigger did reached the loop as the owner.
    expect((await api('GET', '/agents/hooked/chat')).json.turns).toEqual([]);
  });

  it.each([
    ['user', 403, 'CONTROL_TRIGGER_SOURCE_FORBIDDEN'],
    ['Owner', 403, 'CONTROL_TRIGGER_SOURCE_FORBIDDEN'],
    [' system ', 400, 'CONTROL_TRIGGER_SOURCE_INVALID'],
    ['\u200bsystem', 400, 'CONTROL_TRIGGER_SOURCE_INVALID'],
  ])('refuses the owner’s voice (%j) before it reaches the agent', async (source, status, code) => {
    const res = await api('POST', '/agents/hooked/trigger', { source, payload: { build: 8 } });
    expect(res.status).toBe(status);
    expect(res.json.error.code).toBe(code);
    expect((await api('GET', '/agents/hooked/files/builds.txt')).json.file.content).toBe('ci:7;');
  });

  it('start arms the timer clock; stop disarms it', async () => {
    expect(scheduled).toEqual([]);
    expect((await api('POST', '/agents/hooked/start')).status).toBe(200);
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]).toBeGreaterThan(0);
    expect((await api('POST', '/agents/hooked/stop')).status).toBe(200);
    expect(cleared).toEqual([1]);
  });
});
