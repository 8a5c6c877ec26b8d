import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdf } from '@trust/agent-runtime';
import { createControlServer, type ControlServer } from './control-server.js';
import { call } from './control-fixture.test-helper.js';
import { createWorkspaceAgents } from './workspace-agents.js';

let server: ControlServer;
let dir: string;
let agents: ReturnType<typeof createWorkspaceAgents>;
const h = () => ({ authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
const api = async (method: string, path: string, body?: unknown) => {
  const r = await call(server.port, {
    method,
    path: `/api/v1${path}`,
    headers: h(),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, json: r.json() };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ws-'));
  agents = createWorkspaceAgents({ dir });
  server = await createControlServer({ agents });
});
afterAll(async () => {
  await server.close();
  agents.close();
});

describe('workspace agents over .adf files', () => {
  it('creates and lists agents; refuses a duplicate and a bad name', async () => {
    expect((await api('POST', '/agents', { name: 'scout', description: 'reads the news' })).json.agent).toMatchObject({
      id: 'scout',
      name: 'scout',
      state: 'stopped',
    });
    expect((await api('GET', '/agents')).json.agents.map((a: { id: string }) => a.id)).toEqual(['scout']);
    expect((await api('POST', '/agents', { name: 'scout' })).status).toBe(409);
    expect((await api('POST', '/agents', { name: '../evil' })).status).toBe(400);
    expect((await api('GET', '/agents/ghost')).status).toBe(404);
    // A new agent starts from the default posture: built-in tools, adf_shell off and locked.
    const tools = (await api('GET', '/agents/scout/tools')).json.tools;
    expect(tools.find((t: { name: string }) => t.name === 'adf_shell')).toMatchObject({ enabled: false, locked: true });
  });

  it('shows the config redacted, with locked fields and guard paths', async () => {
    expect(
      (await api('PATCH', '/agents/scout/config', { path: 'model.api_key', value: 'sk-live-secret-value' })).status,
    ).toBe(200);
    const { json, status } = await api('GET', '/agents/scout/config');
    expect(status).toBe(200);
    expect(JSON.stringify(json)).not.toContain('sk-live-secret-value');
    expect(json.config.model.api_key).toBe('__redacted__');
    // Limits are not secrets, even when their name contains "token".
    expect(json.config.limits.max_file_read_tokens).toBe(30_000);
    expect(json.config.limits.max_tool_result_tokens).toBe(16_000);
    expect(json.guardPaths.map((g: { path: string }) => g.path)).toContain('security.allow_unsigned');
    expect(json.lockedFields.map((g: { path: string }) => g.path)).toContain('security.allow_local_fetch');
  });

  it('lets the owner change a guard path and a locked field, and audits each change', async () => {
    expect((await api('PATCH', '/agents/scout/config', { path: 'security.allow_unsigned', value: false })).status).toBe(
      200,
    );
    expect((await api('PATCH', '/agents/scout/config', { path: 'limits', value: 'not an object' })).status).toBe(400);
    const audit = (await api('GET', '/agents/scout/audit')).json;
    expect(audit.chain).toMatchObject({ ok: true });
    expect(audit.events.map((e: { action: string; target: string }) => `${e.action} ${e.target}`)).toContain(
      'config.update security.allow_unsigned',
    );
    expect(audit.events.every((e: { principal: { kind: string } }) => e.principal.kind === 'owner')).toBe(true);
  });

  it('edits the tool matrix (owner only, audited), including restricted and locked', async () => {
    const r = await api('PATCH', '/agents/scout/tools/fs_write', { enabled: true, restricted: true, locked: true });
    expect(r.status).toBe(200);
    expect(r.json.tools.find((t: { name: string }) => t.name === 'fs_write')).toMatchObject({
      enabled: true,
      restricted: true,
      locked: true,
      lockedWhy: expect.any(String),
    });
    expect((await api('PATCH', '/agents/scout/tools/fs_write', { restricted: 'yes' })).status).toBe(400);
  });

  it('lists files, reads one, and marks it authorized (audited)', async () => {
    // Write a file straight into the agent file, as the agent would.
    const adf = openAdf(join(dir, 'scout.adf'), { trust: 'owned' });
    adf.files.write('lib/job.ts', 'export const run = () => 1;');
    adf.close();
    expect((await api('GET', '/agents/scout/files')).json.files).toContainEqual(
      expect.objectContaining({ path: 'lib/job.ts', authorized: false }),
    );
    expect((await api('GET', '/agents/scout/files/lib/job.ts')).json.file.content).toContain('run');
    expect((await api('PUT', '/agents/scout/authorized/lib/job.ts', { authorized: true })).json.file).toMatchObject({
      authorized: true,
    });
    expect((await api('PUT', '/agents/scout/authorized/lib%2F..%2F..%2Fx', { authorized: true })).status).toBe(400);
    const events = (await api('GET', '/agents/scout/audit')).json.events;
    expect(events.at(-1)).toMatchObject({ action: 'file.authorize', target: 'lib/job.ts', decision: 'allow' });
  });

  it(
    'reads inbox, outbox, loop history and tasks; ' + 'the runtime routes say NOT_IMPLEMENTED without a runtime',
    async () => {
      expect((await api('GET', '/agents/scout/inbox')).json.messages).toEqual([]);
      expect((await api('GET', '/agents/scout/outbox')).json.messages).toEqual([]);
      expect((await api('GET', '/agents/scout/chat')).json.turns).toEqual([]);
      expect((await api('GET', '/agents/scout/tasks')).json.tasks).toEqual([]);
      const send = await api('POST', '/agents/scout/chat', { text: 'hi' });
      expect(send).toMatchObject({ status: 501, json: { error: { code: expect.toBeTrustCode('NOT_IMPLEMENTED') } } });
    },
  );

  it('reports a tampered audit chain', async () => {
    const adf = openAdf(join(dir, 'scout.adf'), { trust: 'owned' });
    adf.db
      .prepare(
        "UPDATE adf_audit SET event_json = replace(event_json, 'security.allow_unsigned', 'security.other') " +
          "WHERE id = (SELECT min(id) FROM adf_audit WHERE event_json LIKE '%allow_unsigned%')",
      )
      .run();
    adf.close();
    const audit = (await api('GET', '/agents/scout/audit')).json;
    expect(audit.chain.ok).toBe(false);
    expect(typeof audit.chain.brokenAt).toBe('number');
  });
});
