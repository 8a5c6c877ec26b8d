import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrustError } from '@trust/core';
import { createControlServer, type ControlServer } from './control-server.js';
import { call, createTestAgents } from './control-fixture.test-helper.js';
import { PLUGIN_UPLOAD_MAX_BYTES, type LoadedPluginView, type PluginActionHooks } from './plugin-routes.js';

// The studio's plugin actions over a real loopback server. The host hooks are recorders (this
// package never loads WASM; the CLI's hooks are tested with real plugins in @trust/cli): what is
// checked here is the guard on every route, the strict bodies and the bounds before a hook runs.
const view: LoadedPluginView = {
  id: 'hello-1',
  name: 'hello',
  source: 'hello',
  digest: 'a'.repeat(64),
  capabilities: [],
  requested: ['env:GREETING'],
  exports: ['add'],
};
const egress = { file: '/ws/egress-policy.json', name: 'p', rules: [{ path: 'tcp.allow', value: '["db:5432"]' }] };
const seen: { hook: string; input: unknown }[] = [];
const hooks: PluginActionHooks = {
  pluginsLoaded: () => [view],
  pluginLoad: async (input) => {
    seen.push({ hook: 'load', input });
    if (input.grants.includes('env:SECRET'))
      throw new TrustError('STUDIO_PLUGIN_GRANT_WIDER', 'grants wider than the manifest: env:SECRET');
    if (input.grants.includes('http'))
      throw new TrustError('STUDIO_PLUGIN_EGRESS_POLICY_MISSING', 'http reaches the network; no policy', {
        hint: 'write the policy to /ws/egress-policy.json',
      });
    if (input.grants.includes('tcp')) return { plugin: { ...view, capabilities: ['tcp'], egress }, decisions: [] };
    return { plugin: view, decisions: [] };
  },
  pluginCall: async (id, name, args) => {
    seen.push({ hook: 'call', input: { id, name, args } });
    return { plugin: view, export: name, result: 5, output: { stdout: '', stderr: '' }, decisions: [], ms: 1 };
  },
  pluginUnload: async (id) => {
    seen.push({ hook: 'unload', input: id });
    return { unloaded: id };
  },
  pluginUpload: async ({ fileName, bytes }) => {
    seen.push({ hook: 'upload', input: { fileName, size: bytes.length, head: Array.from(bytes.slice(0, 4)) } });
    return { name: 'hello', capabilities: [] };
  },
};

let server: ControlServer;
beforeAll(async () => {
  server = await createControlServer({
    agents: createTestAgents(),
    tokenFile: join(mkdtempSync(join(tmpdir(), 'plugin-routes-')), 'token'),
    pluginActions: hooks,
  });
});
afterAll(async () => server.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}, s = server) =>
  call(s.port, {
    method: 'POST',
    path: `/api/v1${path}`,
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const last = () => seen[seen.length - 1];

const ROUTES: [string, string, unknown][] = [
  ['GET', '/plugins/loaded', undefined],
  ['POST', '/plugins/load', { source: 'hello', grants: [] }],
  ['POST', '/plugins/loaded/hello-1/call', { export: 'add', args: '[2,3]' }],
  ['POST', '/plugins/loaded/hello-1/unload', {}],
  ['POST', '/plugins/upload', { fileName: 'a.tpkg', data: 'H4sI' }],
];

describe('plugin routes: the guard', () => {
  it.each(ROUTES)('%s %s needs the token, the right Host and same origin, and carries the CSP', async (m, p, b) => {
    const o = (headers: Record<string, string>) =>
      call(server.port, {
        method: m,
        path: `/api/v1${p}`,
        headers: { 'content-type': 'application/json', ...headers },
        ...(b === undefined ? {} : { body: JSON.stringify(b) }),
      });
    const auth = { authorization: `Bearer ${server.token}` };
    const before = seen.length;
    expect((await o({})).status).toBe(401);
    expect((await o({ ...auth, host: 'evil.test' })).status).toBe(421);
    expect((await o({ ...auth, origin: 'http://evil.test' })).status).toBe(403);
    expect((await o({ ...auth, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(seen.length).toBe(before);
    const ok = await o(auth);
    expect(ok.status).toBe(200);
    expect(String(ok.headers['content-security-policy'])).toContain("default-src 'none'");
  });

  it('without the host hooks every action answers NOT_IMPLEMENTED and the list says none is provided', async () => {
    const bare = await createControlServer({
      agents: createTestAgents(),
      tokenFile: join(mkdtempSync(join(tmpdir(), 'plugin-routes-bare-')), 'token'),
    });
    try {
      const list = await call(bare.port, {
        path: '/api/v1/plugins/loaded',
        headers: { authorization: `Bearer ${bare.token}` },
      });
      expect(list.json()).toEqual({ provided: false, loaded: [] });
      const load = await post('/plugins/load', { source: 'hello', grants: [] }, {}, bare);
      expect(load.status).toBe(501);
      expect(load.json().error.code).toBeTrustCode('NOT_IMPLEMENTED');
    } finally {
      await bare.close();
    }
  });
});

describe('plugin routes: bodies and bounds', () => {
  it('load: a strict body; a plugin name is one path segment; the host refusal comes back with its code', async () => {
    const ok = await post('/plugins/load', { source: 'hello.tpkg', grants: ['env:GREETING'] });
    expect(ok.status).toBe(200);
    expect(last()).toEqual({ hook: 'load', input: { source: 'hello.tpkg', grants: ['env:GREETING'] } });
    const before = seen.length;
    for (const body of [
      { source: '../etc', grants: [] },
      { source: 'a/b', grants: [] },
      { source: 'hello' },
      { source: 'hello', grants: [], mode: 'replace' },
      { source: 'hello', grants: Array.from({ length: 65 }, () => 'stdout') },
    ]) {
      const res = await post('/plugins/load', body);
      expect(res.status).toBe(400);
      expect(res.json().error.code).toBeTrustCode('CONTROL_BAD_REQUEST');
    }
    expect(seen.length).toBe(before);
    const wider = await post('/plugins/load', { source: 'hello', grants: ['env:SECRET'] });
    expect(wider.status).toBe(400);
    expect(wider.json().error.code).toBeTrustCode('STUDIO_PLUGIN_GRANT_WIDER');
  });

  it('load with a network grant: the policy refusal keeps its code and hint; the policy view comes back', async () => {
    const refused = await post('/plugins/load', { source: 'hello', grants: ['http'] });
    expect(refused.status).toBe(400);
    expect(refused.json().error).toMatchObject({
      code: expect.toBeTrustCode('STUDIO_PLUGIN_EGRESS_POLICY_MISSING'),
      hint: 'write the policy to /ws/egress-policy.json',
    });
    const ok = await post('/plugins/load', { source: 'hello', grants: ['tcp'] });
    expect(ok.status).toBe(200);
    expect(ok.json<{ plugin: { egress: unknown } }>().plugin.egress).toEqual(egress);
  });

  it('call: the arguments are a JSON array text, bounded in nesting by checkJsonText before any parse', async () => {
    expect((await post('/plugins/loaded/hello-1/call', { export: 'add', args: '[2, 3]' })).json()).toMatchObject({
      result: 5,
    });
    expect(last()).toEqual({ hook: 'call', input: { id: 'hello-1', name: 'add', args: [2, 3] } });
    await post('/plugins/loaded/hello-1/call', { export: 'add', args: '' });
    expect(last()).toEqual({ hook: 'call', input: { id: 'hello-1', name: 'add', args: [] } });
    const before = seen.length;
    const cases: [string, string][] = [
      [`${'['.repeat(17)}${']'.repeat(17)}`, 'INPUT_TOO_DEEP'],
      ['{"a": 1}', 'CONTROL_BAD_REQUEST'],
      ['[1,', 'INPUT_JSON_INVALID'],
      ['"x"', 'CONTROL_BAD_REQUEST'],
    ];
    for (const [args, code] of cases) {
      const res = await post('/plugins/loaded/hello-1/call', { export: 'add', args });
      expect(res.status).toBe(400);
      expect(res.json().error.code).toBe(code);
    }
    const deep = await post('/plugins/loaded/hello-1/call', {
      export: 'add',
      args: `[${'['.repeat(16)}1${']'.repeat(16)}]`,
    });
    expect(deep.json().error.code).toBeTrustCode('INPUT_TOO_DEEP');
    for (const name of ['', '../x', 'a b'])
      expect((await post('/plugins/loaded/hello-1/call', { export: name, args: '[]' })).status).toBe(400);
    expect((await post('/plugins/loaded/a%2Fb/call', { export: 'add', args: '[]' })).status).toBe(404);
    expect(seen.length).toBe(before);
  });

  it(
    'upload: base64 bytes reach the host decoded; over the cap is 413 before the host sees it; ' +
      'other routes keep the small cap',
    async () => {
      const bytes = Buffer.alloc(200 * 1024, 7);
      bytes[0] = 0x1f;
      bytes[1] = 0x8b;
      const ok = await post('/plugins/upload', { fileName: 'big.tpkg', data: bytes.toString('base64') });
      expect(ok.status).toBe(200);
      expect(last()).toEqual({
        hook: 'upload',
        input: { fileName: 'big.tpkg', size: bytes.length, head: [0x1f, 0x8b, 7, 7] },
      });
      const before = seen.length;
      const over = Buffer.alloc(PLUGIN_UPLOAD_MAX_BYTES + 3, 1).toString('base64');
      const tooBig = await post('/plugins/upload', { fileName: 'x.tpkg', data: over });
      expect(tooBig.status).toBe(413);
      expect(tooBig.json().error.code).toBeTrustCode('CONTROL_BODY_TOO_LARGE');
      const huge = await post('/plugins/upload', { fileName: 'x.tpkg', data: 'A'.repeat(8 * 1024 * 1024) });
      expect(huge.status).toBe(413);
      for (const data of ['not base64!', '<img src=x>'])
        expect((await post('/plugins/upload', { fileName: 'x.tpkg', data })).json().error.code).toBeTrustCode(
          'CONTROL_BAD_REQUEST',
        );
      expect((await post('/plugins/upload', { fileName: '../x.tpkg', data: 'AA==' })).status).toBe(400);
      // The upload's larger cap is that route's alone.
      const padded = await post('/plugins/load', {
        source: 'hello',
        grants: ['x'.repeat(4000)],
        pad: 'y'.repeat(70_000),
      });
      expect(padded.status).toBe(413);
      expect(seen.length).toBe(before);
    },
  );

  it('unload names the plugin by its path segment', async () => {
    expect((await post('/plugins/loaded/hello-1/unload', {})).json()).toEqual({ unloaded: 'hello-1' });
    expect(last()).toEqual({ hook: 'unload', input: 'hello-1' });
  });
});
