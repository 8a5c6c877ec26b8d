import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdfFile } from '@trust/agent-runtime';
import { LOG_MESSAGE_MAX, LOG_PAGE_MAX } from './agent-detail-logs.js';
import type { AgentLogPage } from './agent-registry.js';
import { createControlServer, type ControlServer } from './control-server.js';
import { call } from './control-fixture.test-helper.js';
import { createWorkspaceAgents } from './workspace-agents.js';

// GET /agents/:id/logs (the studio's Logs tab) and the live `log` events, against a real
// workspace file through the real server. The guard itself is in agent-detail-routes' table.
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
let adf: AdfFile;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'detail-logs-'));
  let t = Date.parse('2026-01-01T00:00:00.000Z');
  // Each write is a second later, so `since` splits rows exactly.
  agents = createWorkspaceAgents({
    dir,
    clock: () => {
      t += 1000;
      return new Date(t);
    },
  });
  server = await createControlServer({ agents, tokenFile: join(dir, 'token') });
  if ((await api('POST', '/agents', { name: 'scout' })).status !== 200) throw new Error('create failed');
  adf = ((await agents.open('scout')) as unknown as { adf: AdfFile }).adf;
  for (let i = 0; i < 12; i++) adf.logs.add({ level: i % 4 === 0 ? 'warn' : 'info', origin: 'test', message: `m${i}` });
});
afterAll(async () => {
  await server.close();
  agents.close();
});

function api(method: string, path: string, body?: unknown) {
  return call(server.port, {
    method,
    path: `/api/v1${path}`,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
const page = async (q: string) => {
  const res = await api('GET', `/agents/scout/logs${q}`);
  expect(res.status).toBe(200);
  return res.json<AgentLogPage>();
};
const messages = (p: AgentLogPage) => p.logs.map((l) => l.message);

describe('GET /agents/:id/logs', () => {
  it('pages newest first through the cursor, each page oldest first', async () => {
    const first = await page('?limit=5');
    expect(messages(first)).toEqual(['m7', 'm8', 'm9', 'm10', 'm11']);
    const second = await page(`?limit=5&before=${first.next}`);
    expect(messages(second)).toEqual(['m2', 'm3', 'm4', 'm5', 'm6']);
    const last = await page(`?limit=5&before=${second.next}`);
    expect(messages(last)).toEqual(['m0', 'm1']);
    expect(last.next).toBeNull();
  });

  it('filters by level and since', async () => {
    expect(messages(await page('?level=warn'))).toEqual(['m0', 'm4', 'm8']);
    const all = await page('');
    const t = all.logs.find((l) => l.message === 'm10')!.time;
    expect(messages(await page(`?since=${encodeURIComponent(t)}`))).toEqual(['m10', 'm11']);
    expect(messages(await page('?level=error'))).toEqual([]);
  });

  it.each([
    ['?limit=0'],
    [`?limit=${LOG_PAGE_MAX + 1}`],
    ['?limit=-1'],
    ['?before=abc'],
    ['?since=yesterday'],
    ['?level=WARN%27%20OR%201%3D1'],
    ['?level=warn&level=info'],
    ['?order=asc'],
  ])('refuses the query %s with CONTROL_BAD_REQUEST', async (q) => {
    const res = await api('GET', `/agents/scout/logs${q}`);
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBeTrustCode('CONTROL_BAD_REQUEST');
  });

  it('refuses a credential in the query string, like every route', async () => {
    const res = await api('GET', `/agents/scout/logs?token=${server.token}`);
    expect(res.json().error.code).toBeTrustCode('CONTROL_TOKEN_IN_QUERY');
  });

  it('cuts a huge message and data to a bounded size, and says so', async () => {
    adf.logs.add({ level: 'error', message: 'x'.repeat(100_000), data: { blob: 'y'.repeat(100_000) } });
    const [row] = (await page('?level=error&limit=1')).logs;
    expect(row?.message).toHaveLength(LOG_MESSAGE_MAX);
    expect(row?.data?.length).toBeLessThanOrEqual(2000);
    expect(row?.truncated).toBe(true);
  });

  it('an unknown agent is 404', async () => {
    expect((await api('GET', '/agents/nobody/logs')).json().error.code).toBeTrustCode('CONTROL_AGENT_NOT_FOUND');
  });
});

describe('live log events', () => {
  it('streams each new row as a `log` event with its time and data', async () => {
    const frame = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/api/v1/events?agent=scout',
          headers: { host: `127.0.0.1:${server.port}`, authorization: `Bearer ${server.token}` },
        },
        (res) => {
          let buf = '';
          res.on('data', (c: Buffer) => {
            buf += c.toString('utf8');
            const at = buf.indexOf('event: log');
            if (at >= 0 && buf.indexOf('\n\n', at) > 0) {
              resolve(buf.slice(at));
              req.destroy();
            }
          });
          adf.logs.add({ level: 'warn', origin: 'mcp', event: 'mcp.failed', message: '<b>live</b>', data: { n: 1 } });
        },
      );
      req.on('error', reject);
      req.end();
    });
    const data = JSON.parse(/data: (.*)\n/.exec(frame)![1]!);
    expect(data).toMatchObject({
      agent: 'scout',
      data: { level: 'warn', origin: 'mcp', event: 'mcp.failed', message: '<b>live</b>', data: '{"n":1}' },
    });
    expect(Date.parse(data.data.time)).not.toBeNaN();
  });
});
