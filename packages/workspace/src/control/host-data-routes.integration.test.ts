import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PluginReport } from './agent-registry.js';
import { createControlServer, type ControlServer } from './control-server.js';
import { call, createTestAgents } from './control-fixture.test-helper.js';
import { createMemoryAuditSink, createPrincipal } from '@trust/core';
import type { AuditLogView } from './audit-timeline.js';
import { createWorkspaceAgents } from './workspace-agents.js';

// The routes whose data the host provides (plugins, audit logs, policy checks): same guard as
// every route (token, Host, Origin), and the host's data passes through unchanged.
let server: ControlServer;
const plugin: PluginReport = {
  name: 'csv-tools',
  version: '1.0.0',
  source: 'csv-tools.tpkg',
  capabilities: [{ name: 'http', risk: 'high', note: 'can reach any host the egress policy allows' }],
  signature: { status: 'untrusted-key', reason: 'key k1 is not trusted' },
  component: { path: 'plugin.wasm', digest: 'a'.repeat(64), size: 10, interfaceHash: 'b'.repeat(64) },
  exports: ['add: func(a: u32, b: u32) -> u32'],
  imports: [{ name: 'wasi:sockets/tcp@0.2.12', granted: false, refused: 'no network capability', hint: 'add "tcp"' }],
};

beforeAll(async () => {
  server = await createControlServer({
    agents: createTestAgents(),
    tokenFile: join(mkdtempSync(join(tmpdir(), 'host-routes-')), 'token'),
    plugins: () => [plugin],
  });
});
afterAll(async () => server.close());

/** The parts of a `GET /audit` answer these tests read. */
interface TimelineAnswer {
  readonly logs: unknown[];
  readonly events: { readonly log: string; readonly action: string; readonly hash: string; readonly prev?: string }[];
}

/** The parts of a `POST /policy/check` answer these tests read. */
interface CheckAnswer {
  readonly allow: boolean;
  readonly steps: { readonly step: string; readonly ok: boolean }[];
}

/** A real chained log (the edge log of a control server) and a plain record (sandbox runs). */
function hostLogs(): AuditLogView[] {
  let t = Date.parse('2030-01-01T00:00:00Z');
  const edge = createMemoryAuditSink({
    clock: () => {
      t += 1000;
      return new Date(t);
    },
  });
  edge.record({
    principal: createPrincipal('peer', '127.0.0.1'),
    action: 'control.request',
    target: '/api/v1/x',
    decision: 'deny',
    rule: 'control-edge',
    code: 'INPUT_TOO_DEEP',
  });
  edge.record({
    principal: createPrincipal('peer', '127.0.0.1'),
    action: 'control.connect',
    target: 'connection',
    decision: 'deny',
    rule: 'control-edge',
    code: 'CONTROL_BUSY',
  });
  return [
    { name: 'control-edge', kind: 'control', chain: { ok: true, count: 2 }, events: edge.events() },
    {
      name: 'sandbox-runs',
      kind: 'sandbox',
      chain: null,
      events: [
        {
          time: '2030-01-01T00:00:01.500Z',
          principal: createPrincipal('process', 'r1'),
          action: 'egress.connect',
          target: '169.254.169.254:80',
          decision: 'deny',
          rule: 'block-link-local',
        },
      ],
    },
  ];
}

const get = (path: string, headers: Record<string, string> = {}) =>
  call(server.port, { path: `/api/v1${path}`, headers: { authorization: `Bearer ${server.token}`, ...headers } });

describe('host data routes', () => {
  it.each(['/plugins', '/audit'])('%s needs the token, the right Host and same origin', async (path) => {
    expect((await call(server.port, { path: `/api/v1${path}` })).status).toBe(401);
    expect((await get(path, { host: 'evil.test' })).status).toBe(421);
    expect((await get(path, { origin: 'http://evil.test' })).status).toBe(403);
    expect((await get(path)).status).toBe(200);
  });

  it('GET /plugins carries the full inspection: digest, interface hash, trust, refused imports', async () => {
    const res = await get('/plugins');
    expect(res.json()).toEqual({ provided: true, plugins: [plugin] });
  });
});

describe('GET /audit: one timeline', () => {
  it(
    'merges every agent chain (verified) with the host logs, newest first, ' + 'each log with its chain status',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'timeline-'));
      const agents = createWorkspaceAgents({ dir });
      const s = await createControlServer({ agents, tokenFile: join(dir, 'token'), auditLogs: hostLogs });
      try {
        const h = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
        expect(
          (
            await call(s.port, {
              method: 'POST',
              path: '/api/v1/agents',
              headers: h,
              body: JSON.stringify({ name: 'scout' }),
            })
          ).status,
        ).toBe(200);
        const res = (await call(s.port, { path: '/api/v1/audit', headers: h })).json<TimelineAnswer>();
        expect(res.logs).toEqual([
          { name: 'agent:scout', kind: 'agent', chain: { ok: true, count: 1 }, count: 1 },
          { name: 'control-edge', kind: 'control', chain: { ok: true, count: 2 }, count: 2 },
          { name: 'sandbox-runs', kind: 'sandbox', chain: null, count: 1 },
        ]);
        // The host's events are from 2030, the agent's from now: newest first, interleaved by time.
        expect(res.events.map((e: { log: string; action: string }) => `${e.log} ${e.action}`)).toEqual([
          'control-edge control.connect',
          'sandbox-runs egress.connect',
          'control-edge control.request',
          'agent:scout agent.create',
        ]);
        const denial = res.events[1];
        expect(denial).toMatchObject({
          kind: 'sandbox',
          decision: 'deny',
          rule: 'block-link-local',
          principal: { kind: 'process', id: 'r1' },
        });
        expect(res.events[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
        expect(res.events[0]?.prev).toBeUndefined();
      } finally {
        await s.close();
        agents.close();
      }
    },
  );

  it('a runtime that cannot list or verify its log is never shown as verified', async () => {
    const res = (await get('/audit')).json();
    expect(res.logs).toEqual([
      {
        name: 'agent:a1',
        kind: 'agent',
        chain: { ok: false, count: 0, reason: 'this runtime cannot list its audit log yet' },
        count: 0,
      },
    ]);
    expect(res.events).toEqual([]);
  });
});

describe('POST /policy/validate and /policy/check', () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(server.port, {
      method: 'POST',
      path: `/api/v1${path}`,
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const policy = JSON.stringify({ v: 1, name: 'gh', http: { allow: ['api.github.com'], methods: ['GET'] } });

  it.each(['/policy/validate', '/policy/check'])('%s needs the token, the right Host and same origin', async (path) => {
    const body = JSON.stringify({ text: policy, url: 'https://api.github.com/' });
    expect(
      (
        await call(server.port, {
          method: 'POST',
          path: `/api/v1${path}`,
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).status,
    ).toBe(401);
    expect((await post(path, { text: policy, url: 'https://api.github.com/' }, { host: 'evil.test' })).status).toBe(
      421,
    );
    expect(
      (await post(path, { text: policy, url: 'https://api.github.com/' }, { origin: 'http://evil.test' })).status,
    ).toBe(403);
  });

  it('answers the real validator: every problem with its path, code and a did-you-mean hint', async () => {
    expect((await post('/policy/validate', { text: policy })).json()).toEqual({
      ok: true,
      name: 'gh',
      sections: ['http'],
    });
    const bad = (
      await post('/policy/validate', { text: JSON.stringify({ v: 1, htp: {}, tcp: { allow: ['not a host:99999'] } }) })
    ).json();
    expect(bad.ok).toBe(false);
    expect(bad.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: expect.toBeTrustCode('POLICY_UNKNOWN_KEY'),
          path: 'htp',
          hint: expect.stringContaining('did you mean "http"'),
        }),
        expect.objectContaining({ path: 'tcp.allow[0]' }),
      ]),
    );
    const syntax = (await post('/policy/validate', { text: '{ "v": 1,\n  "http": }' })).json<{ problems: unknown[] }>();
    expect(syntax.problems[0]).toMatchObject({
      code: expect.toBeTrustCode('POLICY_JSON'),
      message: expect.stringContaining('not valid JSON'),
    });
    expect((await post('/policy/validate', { nope: 1 })).status).toBe(400);
  });

  it('checks a URL step by step, the guard first and then the policy, as the CLI does', async () => {
    const allowed = (
      await post('/policy/check', {
        text: policy,
        url: 'https://api.github.com/zen',
        resolve: { 'api.github.com': ['140.82.112.5'] },
      })
    ).json<CheckAnswer>();
    expect(allowed).toMatchObject({ allow: true, addresses: ['140.82.112.5'] });
    expect(allowed.steps.map((s: { step: string }) => s.step).slice(-2)).toEqual(['policy', 'verdict']);
    const other = (
      await post('/policy/check', {
        text: policy,
        url: 'https://example.org/',
        resolve: { 'example.org': ['93.184.215.14'] },
      })
    ).json<CheckAnswer>();
    expect(other).toMatchObject({ allow: false, code: expect.stringMatching(/^EGRESS_|^POLICY_/) });
    expect(other.steps.find((s: { step: string }) => s.step === 'policy')).toMatchObject({ ok: false });
    const metadata = (
      await post('/policy/check', { text: policy, url: 'http://169.254.169.254/latest/meta-data/' })
    ).json<CheckAnswer>();
    expect(metadata.allow).toBe(false);
    expect(metadata.steps.some((s: { step: string }) => s.step === 'policy')).toBe(false);
  });

  it('a policy that needs a secret the host does not give reports it, and never echoes a value', async () => {
    const withSecret = JSON.stringify({
      v: 1,
      http: {
        allow: ['api.github.com'],
        inject: [{ hosts: ['api.github.com'], headers: { authorization: { env: 'GH_AUTH' } } }],
      },
    });
    const res = (
      await post('/policy/check', {
        text: withSecret,
        url: 'https://api.github.com/',
        resolve: { 'api.github.com': ['140.82.112.5'] },
      })
    ).json();
    expect(res).toMatchObject({ allow: false, code: expect.toBeTrustCode('POLICY_INVALID') });
    expect(JSON.stringify(res.problems)).toContain('GH_AUTH');
  });
});
