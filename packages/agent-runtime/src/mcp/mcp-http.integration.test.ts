import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allow, deny, type AuditEvent, type EgressHttpRequest } from '@trust/core';
import { createEgressClient } from '@trust/egress';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { openAgent } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';

// A small MCP server over Streamable HTTP in a child process on 127.0.0.1, reached only through
// the agent's @trust/egress client: the guard, the policy (which injects the server's credential)
// and the audit apply to every request of the SDK's transport.
const serverFile = fileURLToPath(new URL('./fixtures/echo-mcp-http-server.mjs', import.meta.url));
const TOKEN = 's3cret-mcp-token';
let child: ChildProcess;
let port = 0;

const hits = () =>
  new Promise<number>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/count' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve((JSON.parse(body) as { hits: number }).hits));
    })
      .on('error', reject)
      .end();
  });

beforeAll(async () => {
  child = spawn(process.execPath, [serverFile, TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
  port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`MCP HTTP fixture exited with ${code}`)));
    child.stdout!.once('data', (c: Buffer) => resolve(Number.parseInt(c.toString('utf8'), 10)));
  });
});
afterAll(() => {
  child?.kill('SIGTERM');
});

function agentWithHttpServer() {
  const path = join(mkdtempSync(join(tmpdir(), 'mcp-http-')), 'a.adf');
  const config = structuredClone(defaultAgentConfig()) as unknown as {
    tools: unknown[];
    limits: { max_tool_result_tokens: number };
    mcp: { servers: unknown[] };
  };
  config.mcp.servers = [{ name: 'web', url: `http://127.0.0.1:${port}/mcp` }];
  config.tools.push(
    { name: 'mcp_web_echo', enabled: true, visible: true },
    { name: 'mcp_web_big', enabled: true, visible: true },
  );
  config.limits.max_tool_result_tokens = 100;
  createAdf(path, { template: config }).close();
  return openAgent(path, { provider: createScriptedProvider() });
}

const policy = (inject: boolean) => ({
  name: 'mcp-web',
  authorizeHttp: (r: EgressHttpRequest) => {
    if (r.host !== '127.0.0.1' || r.port !== port) return deny('EGRESS_POLICY_DENIED', 'only the MCP test server');
    if (inject) r.headers.set('authorization', `Bearer ${TOKEN}`);
    return allow('mcp-web');
  },
});

describe('MCP over Streamable HTTP through the egress client', () => {
  it('connects and runs tools; the credential comes from the egress policy; every request is audited', async () => {
    const agent = agentWithHttpServer();
    const http = createEgressClient({ policy: policy(true), audit: agent.adf.audit });
    const connected = await agent.connectMcpServers({ http });
    expect(connected).toEqual([
      { server: 'web', placement: 'remote', tools: ['mcp_web_echo', 'mcp_web_big'], refusedEnv: [] },
    ]);
    expect(await agent.gate.call('mcp_web_echo', { text: 'hi' }, { origin: 'llm' })).toEqual({ content: 'echo: hi' });
    const big = (await agent.gate.call('mcp_web_big', {}, { origin: 'llm' })) as { content: string };
    expect(big.content).toContain('[truncated');
    const egress = agent.adf.audit.list().filter((e: AuditEvent) => e.action === 'egress.http');
    expect(egress.length).toBeGreaterThanOrEqual(4); // initialize, initialized, tools/list, two calls
    expect(
      egress.every((e) => e.decision === 'allow' && e.principal.kind === 'plugin' && e.principal.id === 'mcp:web'),
    ).toBe(true);
    expect(JSON.stringify(egress)).not.toContain(TOKEN);
    agent.close();
  });

  it('without the injected credential the server refuses: the agent holds none', async () => {
    const agent = agentWithHttpServer();
    await expect(
      agent.connectMcpServers({ http: createEgressClient({ policy: policy(false) }) }),
    ).rejects.toHaveTrustCode('MCP_CONNECT_FAILED');
    agent.close();
  });

  it('the guard and the policy stop requests before they reach the server, and the refusal is audited', async () => {
    const before = await hits();
    const agent = agentWithHttpServer();
    const guarded = createEgressClient({
      policy: policy(true),
      guard: { protectedPorts: [port] },
      audit: agent.adf.audit,
    });
    await expect(agent.connectMcpServers({ http: guarded })).rejects.toHaveTrustCode('MCP_CONNECT_FAILED');
    const refusing = createEgressClient({
      policy: { name: 'deny-all', authorizeHttp: () => deny('EGRESS_POLICY_DENIED', 'no MCP today') },
      audit: agent.adf.audit,
    });
    await expect(agent.connectMcpServers({ http: refusing })).rejects.toHaveTrustCode('MCP_CONNECT_FAILED');
    expect(await hits()).toBe(before);
    const denied = agent.adf.audit
      .list()
      .filter((e: AuditEvent) => e.action === 'egress.http' && e.decision === 'deny');
    expect(denied.length).toBeGreaterThanOrEqual(2);
    agent.close();
  });

  it('a url server without an egress client is refused, never fetched directly', async () => {
    const before = await hits();
    const agent = agentWithHttpServer();
    await expect(agent.connectMcpServers({})).rejects.toHaveTrustCode('MCP_HTTP_NO_EGRESS');
    expect(await hits()).toBe(before);
    agent.close();
  });
});
