import { mkdtempSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentity } from '@trust/agent-runtime';
import { signAdfContent } from '@trust/agent-runtime/identity';
import type { AdfFile } from '@trust/agent-runtime';
import { createControlServer, type ControlServer } from './control-server.js';
import { call } from './control-fixture.test-helper.js';
import { createWorkspaceAgents } from './workspace-agents.js';

// The studio's agent detail routes (editor, runtime panels, mesh, templates) against a real
// workspace of .adf files, through the real server and its guard.
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
const sha = (s: string) => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');
const adfOf = async (id: string) => ((await agents.open(id)) as unknown as { adf: AdfFile }).adf;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'detail-routes-'));
  agents = createWorkspaceAgents({ dir });
  server = await createControlServer({ agents, tokenFile: join(dir, 'token') });
  const made = await api('POST', '/agents', { name: 'scout' });
  if (made.status !== 200) throw new Error(made.text);
});
afterAll(async () => {
  await server.close();
  agents.close();
});

function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return call(server.port, {
    method,
    path: `/api/v1${path}`,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('agent detail routes: the guard', () => {
  const routes: [string, string, unknown][] = [
    ['GET', '/agents/scout/file-text/notes.md', undefined],
    ['PUT', '/agents/scout/file-text/guard.md', { content: 'x', base: null }],
    ['GET', '/agents/scout/runtime', undefined],
    ['GET', '/agents/scout/logs', undefined],
    ['GET', '/agents/scout/logs?level=warn&limit=5', undefined],
    ['GET', '/config-schema', undefined],
    ['GET', '/mesh', undefined],
    ['GET', '/agent-templates', undefined],
    ['POST', '/agent-templates/blank', { name: 'guarded', provider: 'scripted' }],
  ];
  it.each(routes)('%s %s needs the token, the right Host and same origin', async (method, path, body) => {
    const raw = body === undefined ? {} : { body: JSON.stringify(body) };
    const json = { 'content-type': 'application/json' };
    expect((await call(server.port, { method, path: `/api/v1${path}`, headers: json, ...raw })).status).toBe(401);
    expect((await api(method, path, body, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await api(method, path, body, { host: 'evil.test' })).status).toBe(421);
    expect((await api(method, path, body, { origin: 'http://evil.test' })).status).toBe(403);
    expect((await api(method, path, body, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // Nothing was created or written by the refused requests.
    expect((await api('GET', '/agents/scout/files')).json().files).toEqual([]);
    expect((await api('GET', '/agents')).json().agents.map((a: { id: string }) => a.id)).toEqual(['scout']);
  });
  it('answers with the studio CSP and no-store', async () => {
    const res = await api('GET', '/agents/scout/runtime');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('the file editor routes', () => {
  it('creates, reads back with its hash, and saves only over what was read (409 otherwise)', async () => {
    expect((await api('GET', '/agents/scout/file-text/notes.md')).json().error.code).toBeTrustCode('CONTROL_NOT_FOUND');
    const made = await api('PUT', '/agents/scout/file-text/notes.md', { content: '# one\n', base: null });
    expect(made.status).toBe(200);
    expect(made.json().file).toMatchObject({ path: 'notes.md', content: '# one\n', sha256: sha('# one\n') });
    expect((await api('PUT', '/agents/scout/file-text/notes.md', { content: 'x', base: null })).status).toBe(409);
    const stale = await api('PUT', '/agents/scout/file-text/notes.md', { content: 'x', base: sha('other') });
    expect(stale.json().error.code).toBeTrustCode('CONTROL_CONFLICT');
    const saved = await api('PUT', '/agents/scout/file-text/notes.md', { content: '# two\n', base: sha('# one\n') });
    expect(saved.json().file.content).toBe('# two\n');
    const back = (await api('GET', '/agents/scout/file-text/notes.md')).json();
    expect(back).toMatchObject({ file: { content: '# two\n', editable: true }, maxBytes: 48 * 1024 });
    const audit = (await api('GET', '/agents/scout/audit')).json();
    expect(audit.events.filter((e: { action: string }) => e.action === 'file.write')).toHaveLength(2);
    expect(audit.chain.ok).toBe(true);
  });

  it.each(['..%2fescape.md', 'a/../b.md', '%2fetc%2fpasswd', 'a%00b.md', 'a%5cb.md', 'a//b.md'])(
    'refuses the path %s with CONTROL_PATH_INVALID and writes nothing',
    async (path) => {
      const res = await api('PUT', `/agents/scout/file-text/${path}`, { content: 'x', base: null });
      expect(res.json().error.code).toBeTrustCode('CONTROL_PATH_INVALID');
      const files = (await api('GET', '/agents/scout/files')).json().files as { path: string }[];
      expect(files.map((f) => f.path)).not.toContain(decodeURIComponent(path));
    },
  );

  it('caps a save at 48 KiB of UTF-8 (multi-byte text too) and refuses extra or missing keys', async () => {
    const big = await api('PUT', '/agents/scout/file-text/big.md', { content: '€'.repeat(20_000), base: null });
    expect(big.status).toBe(413);
    expect(big.json().error.code).toBeTrustCode('CONTROL_BODY_TOO_LARGE');
    const long = await api('PUT', '/agents/scout/file-text/big.md', { content: 'a'.repeat(50_000), base: null });
    expect(long.json().error.code).toBeTrustCode('CONTROL_BAD_REQUEST');
    expect((await api('PUT', '/agents/scout/file-text/big.md', { content: 'a' })).status).toBe(400);
    const extra = await api('PUT', '/agents/scout/file-text/big.md', { content: 'a', base: null, authorized: true });
    expect(extra.status).toBe(400);
    expect((await api('GET', '/agents/scout/file-text/big.md')).status).toBe(404);
  });

  it(
    'a read_only file is shown not editable with ADF_FILE_PROTECTED ' + 'and a save is refused with that code',
    async () => {
      const adf = await adfOf('scout');
      adf.files.write('locked.md', 'keep');
      adf.files.setProtection('locked.md', 'read_only', 'owner');
      const view = (await api('GET', '/agents/scout/file-text/locked.md')).json().file;
      expect(view).toMatchObject({
        editable: false,
        refused: { code: expect.toBeTrustCode('ADF_FILE_PROTECTED') },
        content: 'keep',
      });
      const res = await api('PUT', '/agents/scout/file-text/locked.md', { content: 'changed', base: sha('keep') });
      expect(res.status).toBe(400);
      expect(res.json().error.code).toBeTrustCode('ADF_FILE_PROTECTED');
      expect(adf.files.read('locked.md')!.content.toString()).toBe('keep');
    },
  );

  it('a save clears the authorized flag (content changed under the owner review)', async () => {
    const adf = await adfOf('scout');
    adf.files.write('run.ts', 'export const a = 1;');
    adf.files.setAuthorized('run.ts', true, 'owner');
    const saved = await api('PUT', '/agents/scout/file-text/run.ts', {
      content: 'x',
      base: sha('export const a = 1;'),
    });
    expect(saved.status).toBe(200);
    expect(adf.files.isAuthorized('run.ts')).toBe(false);
  });
});

describe('runtime panels, mesh and templates', () => {
  it('creates from a template with a chosen provider, validated by the config schema', async () => {
    const body = { name: 'mailer', provider: 'anthropic', model_id: 'claude-x', api_key_env: 'ANTHROPIC_API_KEY' };
    const res = await api('POST', '/agent-templates/mail-responder', body);
    expect(res.json().agent).toMatchObject({ id: 'mailer' });
    const cfg = (await api('GET', '/agents/mailer/config')).json().config;
    expect(cfg.model).toMatchObject({ provider: 'anthropic', model_id: 'claude-x', api_key_env: 'ANTHROPIC_API_KEY' });
    expect(cfg.messaging.receive).toBe(true);
    expect((await api('POST', '/agent-templates/mail-responder', body)).json().error.code).toBeTrustCode(
      'CONTROL_CONFLICT',
    );
    const bad = [
      ['/agent-templates/blank', { name: 'x1', provider: 'gpt-magic' }],
      ['/agent-templates/blank', { name: 'x2', provider: 'anthropic', api_key: 'sk-secret' }],
      ['/agent-templates/blank', { name: 'x3', provider: 'openai-compatible', base_url: 'not a url' }],
      ['/agent-templates/blank', { name: '../x4', provider: 'scripted' }],
    ] as const;
    for (const [path, b] of bad)
      expect((await api('POST', path, b)).json().error.code).toBeTrustCode('CONTROL_BAD_REQUEST');
    expect((await api('POST', '/agent-templates/nope', { name: 'x5', provider: 'scripted' })).status).toBe(404);
    const list = (await api('GET', '/agent-templates')).json();
    expect(list.providers).toEqual(['scripted', 'openai-compatible', 'anthropic']);
    expect(list.templates.map((t: { id: string }) => t.id)).toContain('careful-writer');
  });

  it('shows triggers, timers, MCP servers, identity and review status from the file', async () => {
    const adf = await adfOf('mailer');
    const id = createIdentity();
    adf.meta.set('adf_did', id.did, { runtime: true, protection: 'readonly' });
    adf.timers.add({ schedule: { every_ms: 60_000 }, nextWakeAt: '2030-01-01T00:00:00.000Z' });
    const mcp = await api('PATCH', '/agents/mailer/config', {
      path: 'mcp.servers',
      value: [{ name: 'gh', command: 'gh-mcp', args: ['--ro'] }],
    });
    expect(mcp.status).toBe(200);
    signAdfContent(adf, id);
    let rt = (await api('GET', '/agents/mailer/runtime')).json().runtime;
    expect(rt.triggers).toEqual([{ type: 'on_inbox', scope: 'agent' }]);
    expect(rt.timers).toHaveLength(1);
    expect(rt.timers[0]).toMatchObject({ schedule: { every_ms: 60_000 }, locked: false });
    expect(rt.mcp).toEqual([expect.objectContaining({ name: 'gh', transport: 'stdio', target: 'gh-mcp --ro' })]);
    expect(rt.mcp[0]?.status).toContain('no tool enabled');
    expect(rt.identity).toMatchObject({ did: id.did, ownerDid: id.did, review: 'signed' });
    // Any change after the review shows the signature no longer covers the file.
    await api('PUT', '/agents/mailer/file-text/after.md', { content: 'x', base: null });
    rt = (await api('GET', '/agents/mailer/runtime')).json().runtime;
    expect(rt.identity).toMatchObject({ ownerDid: null, review: 'signature-invalid' });
  });

  it('GET /mesh names local DIDs by agent and counts each message once', async () => {
    const did = (await api('GET', '/agents/mailer/runtime')).json().runtime.identity.did as string;
    (await adfOf('scout')).outbox.insert({ from: 'scout', to: did, content: 'hi' });
    (await adfOf('mailer')).inbox.insert({ from: 'scout', to: did, content: 'hi' });
    (await adfOf('mailer')).inbox.insert({ from: 'did:key:zRemote', to: did, content: 'yo' });
    const mesh = (await api('GET', '/mesh')).json();
    expect(mesh.agents).toEqual(
      expect.arrayContaining([
        { id: 'mailer', did },
        { id: 'scout', did: null },
      ]),
    );
    expect(mesh.edges.map((e: { from: string; to: string; count: number }) => [e.from, e.to, e.count])).toEqual([
      ['did:key:zRemote', 'mailer', 1],
      ['scout', 'mailer', 1],
    ]);
  });

  it('GET /config-schema is the config schema as JSON Schema, with descriptions', async () => {
    const s = (await api('GET', '/config-schema')).json().schema;
    expect(s.properties?.limits?.properties?.max_sql_rows?.description).toMatch(/./);
    expect(s.properties?.model?.properties?.provider?.enum).toEqual(['scripted', 'openai-compatible', 'anthropic']);
  });
});
