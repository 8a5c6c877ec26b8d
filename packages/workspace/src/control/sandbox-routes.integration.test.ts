import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestAgents } from './control-fixture.test-helper.js';
import { controlError } from './control-error.js';
import { createControlServer, type ControlServer } from './control-server.js';
import type { SandboxControl, SandboxLiveRun, SandboxStartInput } from './sandbox-routes.js';

// The sandbox routes of the studio: the same guard as every route (token, Host, Origin, CSP),
// strict bodies with bounded argv, and the host's answers passed through. The host side (the real
// OS sandbox) is the CLI's and is tested there and in the studio's browser tests; here it is a
// recording stand-in, since agent-runtime must not depend on the sandbox.
const seen: { op: string; arg: unknown }[] = [];
const run: SandboxLiveRun = {
  id: 'r1',
  argv: ['echo', 'hi'],
  startedAt: new Date(0).toISOString(),
  state: 'running',
  policy: { v: 1 },
  egress: null,
  limits: { timeMs: 60_000, outputBytes: 1024 },
  counts: { allowed: 0, denied: 0 },
};
const control: SandboxControl = {
  validate: async (input: SandboxStartInput) => {
    seen.push({ op: 'validate', arg: input });
    return { ok: false, problems: [{ code: 'SANDBOX_POLICY_FIELD', path: 'policy.v', message: 'must be 1' }] };
  },
  start: async (input) => {
    seen.push({ op: 'start', arg: input });
    return { ok: true, run };
  },
  list: () => [run],
  get: (id) => {
    if (id !== 'r1') throw controlError('CONTROL_NOT_FOUND', `no sandbox run ${id}`);
    return run;
  },
  events: async (id, after, waitMs) => {
    seen.push({ op: 'events', arg: [id, after, waitMs] });
    return {
      events: [{ seq: after + 1, kind: 'output', stream: 'stdout', text: 'hi\n' }],
      next: after + 1,
      state: 'running',
    };
  },
  kill: async (id) => {
    seen.push({ op: 'kill', arg: id });
    return { ...run, state: 'exited' };
  },
};

let server: ControlServer;
let bare: ControlServer;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-routes-'));
  server = await createControlServer({
    agents: createTestAgents(),
    tokenFile: join(dir, 'token'),
    sandboxControl: control,
  });
  bare = await createControlServer({ agents: createTestAgents(), tokenFile: join(dir, 'token2') });
});
afterAll(async () => {
  await server.close();
  await bare.close();
});

const START = { argv: ['echo', 'hi'], policy: { v: 1, capabilities: ['stdout'] } };
const req = (s: ControlServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(s.port, {
    method,
    path: `/api/v1${path}`,
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const ROUTES: [string, string, unknown][] = [
  ['POST', '/sandbox/validate', START],
  ['POST', '/sandbox/runs', START],
  ['GET', '/sandbox/runs', undefined],
  ['GET', '/sandbox/runs/r1', undefined],
  ['GET', '/sandbox/runs/r1/events/0', undefined],
  ['POST', '/sandbox/runs/r1/kill', undefined],
];

describe('sandbox routes: the guard', () => {
  it.each(ROUTES)(
    '%s %s needs the token, the right Host and same origin, and carries the CSP',
    async (m, path, body) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const anonymous = await call(server.port, { method: m, path: `/api/v1${path}`, ...(text ? { body: text } : {}) });
      expect(anonymous.status).toBe(401);
      expect((await req(server, m, path, body, { host: 'evil.test' })).status).toBe(421);
      expect((await req(server, m, path, body, { origin: 'http://evil.test' })).status).toBe(403);
      expect((await req(server, m, path, body, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      const ok = await req(server, m, path, body);
      expect(ok.status).toBe(200);
      expect(ok.headers['content-security-policy']).toContain("default-src 'none'");
    },
  );

  it('a refused request never reaches the host', async () => {
    seen.length = 0;
    await call(server.port, { method: 'POST', path: '/api/v1/sandbox/runs', body: JSON.stringify(START) });
    await req(server, 'POST', '/sandbox/runs', START, { origin: 'http://evil.test' });
    await req(server, 'POST', '/sandbox/runs/r1/kill', undefined, { authorization: 'Bearer wrong' });
    expect(seen).toEqual([]);
  });
});

describe('sandbox routes: strict, bounded bodies', () => {
  it.each([
    ['an unknown key', { ...START, shell: true }],
    ['an empty argv', { ...START, argv: [] }],
    ['a command string instead of argv', { ...START, argv: 'echo hi' }],
    ['too many words', { ...START, argv: Array.from({ length: 257 }, () => 'x') }],
    ['a word over 8192 characters', { ...START, argv: ['echo', 'x'.repeat(8193)] }],
    ['a policy that is not an object', { ...START, policy: '{"v":1}' }],
    ['no policy', { argv: ['echo'] }],
  ])('refuses %s with CONTROL_BAD_REQUEST before the host sees it', async (_name, body) => {
    seen.length = 0;
    for (const path of ['/sandbox/validate', '/sandbox/runs']) {
      const res = await req(server, 'POST', path, body);
      expect(res.status).toBe(400);
      expect(res.json().error.code).toBeTrustCode('CONTROL_BAD_REQUEST');
    }
    expect(seen).toEqual([]);
  });

  it('a body over the server limit is refused with 413', async () => {
    const res = await req(server, 'POST', '/sandbox/runs', {
      ...START,
      argv: ['echo', ...Array(200).fill('y'.repeat(800))],
    });
    expect(res.status).toBe(413);
  });

  it('passes a valid request, the cursor and the run id to the host unchanged, and its answers back', async () => {
    seen.length = 0;
    const body = { ...START, cwd: '/w', egress: { v: 1, http: { allow: ['a.test'] } } };
    expect((await req(server, 'POST', '/sandbox/validate', body)).json()).toEqual({
      ok: false,
      problems: [{ code: expect.toBeTrustCode('SANDBOX_POLICY_FIELD'), path: 'policy.v', message: 'must be 1' }],
    });
    expect((await req(server, 'POST', '/sandbox/runs', body)).json()).toEqual({ ok: true, run });
    expect((await req(server, 'GET', '/sandbox/runs/r1/events/41')).json().next).toBe(42);
    expect((await req(server, 'POST', '/sandbox/runs/r1/kill')).json<{ run: { state: string } }>().run.state).toBe(
      'exited',
    );
    expect(seen).toEqual([
      { op: 'validate', arg: body },
      { op: 'start', arg: body },
      { op: 'events', arg: ['r1', 41, 10_000] },
      { op: 'kill', arg: 'r1' },
    ]);
    expect((await req(server, 'GET', '/sandbox/runs')).json()).toEqual({ provided: true, runs: [run] });
    expect((await req(server, 'GET', '/sandbox/runs/nope')).status).toBe(404);
    expect((await req(server, 'GET', '/sandbox/runs/r1/events/-1')).status).toBe(404);
    expect((await req(server, 'PATCH', '/sandbox/runs/r1/kill')).status).toBe(405);
  });

  it('without a host sandbox the routes answer 501 with the fix, and the list says none is provided', async () => {
    const res = await req(bare, 'POST', '/sandbox/runs', START);
    expect(res.status).toBe(501);
    expect(res.json().error).toMatchObject({
      code: expect.toBeTrustCode('NOT_IMPLEMENTED'),
      hint: expect.stringContaining('trust studio'),
    });
    expect((await req(bare, 'GET', '/sandbox/runs')).json()).toEqual({ provided: false, runs: [] });
    expect((await req(bare, 'POST', '/sandbox/runs/r1/kill')).status).toBe(501);
  });
});
