import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '@trust/os-sandbox';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { createToolRegistry } from '../gate/tool-definition.js';
import { createToolGate } from '../gate/tool-gate.js';
import { connectMcpServer } from './mcp-connector.js';
import { openAgent } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import type { McpConnection, McpServerConfig } from './mcp-connector.js';

// A real stdio MCP server (written for these tests) inside bubblewrap, driven by the official
// SDK client. Needs bwrap: this test fails, not skips, when the sandbox cannot start.
const serverFile = realpathSync(fileURLToPath(new URL('./fixtures/echo-mcp-server.mjs', import.meta.url)));
const nodePrefix = dirname(dirname(realpathSync(process.execPath)));
const canaryDir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-canary-')));
const canary = join(canaryDir, 'secret.txt');
writeFileSync(canary, 'host secret');
const open: McpConnection[] = [];

const server = (extra: Partial<McpServerConfig> = {}): McpServerConfig => ({
  name: 'echo',
  command: process.execPath,
  args: [serverFile],
  env: {
    GOOD_SETTING: 'ok',
    NODE_OPTIONS: '--require /nonexistent/evil.js',
    LD_PRELOAD: '/nonexistent/evil.so',
    DYLD_INSERT_LIBRARIES: '/x.dylib',
    ELECTRON_RUN_AS_NODE: '1',
  },
  capabilities: [`fs:ro:${dirname(serverFile)}`, 'env:GOOD_SETTING'],
  ...extra,
});

const connect = async (o: Partial<Parameters<typeof connectMcpServer>[0]> = {}) => {
  const c = await connectMcpServer({
    server: server(),
    installedBy: 'agent',
    createSandbox: (p) => createSandbox(p as never),
    readOnlyRoots: [nodePrefix],
    connectTimeoutMs: 60_000,
    ...o,
  });
  open.push(c);
  return c;
};

afterAll(async () => {
  for (const c of open) await c.close();
  expect(readFileSync(canary, 'utf8')).toBe('host secret');
});

describe('MCP stdio server inside the OS sandbox', { timeout: 120_000 }, () => {
  it('connects, lists tools as mcp_<server>_<tool>, and runs them through the gate', async () => {
    const conn = await connect();
    expect(conn.placement).toBe('sandbox');
    expect(conn.tools.map((t) => t.name).sort()).toEqual([
      'mcp_echo_big',
      'mcp_echo_echo',
      'mcp_echo_fail',
      'mcp_echo_whoami',
    ]);
    expect(conn.tools[0]!.description).toMatch(/^\[sandboxed\] MCP echo/);
    const path = join(mkdtempSync(join(tmpdir(), 'mcp-agent-')), 'a.adf');
    const config = structuredClone(defaultAgentConfig()) as unknown as {
      tools: unknown[];
      limits: { max_tool_result_tokens: number };
    };
    config.tools.push(
      { name: 'mcp_echo_echo', enabled: true, visible: true },
      { name: 'mcp_echo_whoami', enabled: true, visible: true },
      { name: 'mcp_echo_big', enabled: true, visible: true },
      { name: 'mcp_echo_fail', enabled: true, visible: true, restricted: true },
    );
    config.limits.max_tool_result_tokens = 100;
    const adf = createAdf(path, { template: config });
    const gate = createToolGate({ adf, registry: createToolRegistry(conn.tools) });
    expect(await gate.call('mcp_echo_echo', { text: 'hi' }, { origin: 'llm' })).toEqual({ content: 'echo: hi' });
    const big = (await gate.call('mcp_echo_big', {}, { origin: 'llm' })) as { content: string };
    expect(big.content.length).toBeLessThan(1000);
    expect(big.content).toContain('[truncated');
    // the same access matrix: a restricted MCP tool is refused to unauthorized code
    await expect(gate.call('mcp_echo_fail', {}, { origin: 'code' })).rejects.toHaveTrustCode(
      'REQUIRES_AUTHORIZED_CODE',
    );
    await expect(gate.call('mcp_echo_fail', {}, { origin: 'authorized-code' })).rejects.toHaveTrustCode(
      'MCP_TOOL_ERROR',
    );
    // an undeclared MCP tool does not run at all
    const undeclared = createToolGate({ adf, registry: createToolRegistry(conn.tools) });
    adf.setConfig({ ...adf.config(), tools: adf.config().tools.filter((t) => t.name !== 'mcp_echo_echo') });
    await expect(undeclared.call('mcp_echo_echo', { text: 'x' }, { origin: 'llm' })).rejects.toHaveTrustCode(
      'TOOL_NOT_DECLARED',
    );
    adf.close();
  });

  it('blocks dangerous env vars and keeps the host canary out of reach', async () => {
    const conn = await connect();
    expect([...conn.refusedEnv].sort()).toEqual([
      'DYLD_INSERT_LIBRARIES',
      'ELECTRON_RUN_AS_NODE',
      'LD_PRELOAD',
      'NODE_OPTIONS',
    ]);
    const whoami = conn.tools.find((t) => t.name === 'mcp_echo_whoami')!;
    const ctx = { config: defaultAgentConfig(), signal: new AbortController().signal } as never;
    const r = JSON.parse(((await whoami.run({ probe: canary } as never, ctx)) as { content: string }).content) as {
      env: string[];
      probe: string;
      nodeOptions: string | null;
    };
    expect(r.env).toContain('GOOD_SETTING');
    expect(r.env).not.toContain('NODE_OPTIONS');
    expect(r.env).not.toContain('LD_PRELOAD');
    expect(r.nodeOptions).toBeNull();
    expect(r.probe).toMatch(/^DENIED:/);
  });

  it('an agent-installed server may not run on the host without the host gate', async () => {
    await expect(
      connectMcpServer({
        server: server(),
        installedBy: 'agent',
        runOn: 'host',
        createSandbox: () => {
          throw new Error('unused');
        },
      }),
    ).rejects.toHaveTrustCode('MCP_HOST_REFUSED');
  });

  it('an owner-installed server may run on the host, and says so', async () => {
    const conn = await connect({ installedBy: 'owner', runOn: 'host' });
    expect(conn.placement).toBe('host');
    expect(conn.tools[0]!.description).toMatch(/^\[host\] /);
    expect(conn.refusedEnv).toContain('NODE_OPTIONS');
  });

  it('an agent connects its configured servers and the loop calls their tools through the gate', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mcp-loop-')), 'a.adf');
    const config = structuredClone(defaultAgentConfig()) as unknown as {
      tools: unknown[];
      mcp: { servers: unknown[] };
    };
    config.tools.push({ name: 'mcp_echo_echo', enabled: true, visible: true });
    config.mcp.servers = [server()];
    createAdf(path, { template: config }).close();
    const restrictedPath = join(mkdtempSync(join(tmpdir(), 'mcp-loop-')), 'r.adf');
    createAdf(restrictedPath, {
      template: { ...config, mcp: { servers: [{ ...server(), restricted: true }] } },
    }).close();
    const provider = createScriptedProvider([
      { content: [{ type: 'tool_use', id: 'm1', name: 'mcp_echo_echo', input: { text: 'via loop' } }] },
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const agent = openAgent(path, { provider });
    const connected = await agent.connectMcpServers({
      createSandbox: (p) => createSandbox(p as never),
      readOnlyRoots: [nodePrefix],
      connectTimeoutMs: 60_000,
    });
    expect(connected).toMatchObject([
      { server: 'echo', placement: 'sandbox', refusedEnv: expect.arrayContaining(['NODE_OPTIONS']) },
    ]);
    await agent.send('echo');
    expect(provider.requests[0]!.tools!.map((t) => t.name)).toContain('mcp_echo_echo');
    // tools of a configured server are declared by the server entry (enabled, visible) unless overridden
    expect(provider.requests[0]!.tools!.map((t) => t.name)).toContain('mcp_echo_whoami');
    const last = provider.requests[1]!.messages.at(-1)!.content as unknown as Array<{ content: string }>;
    expect(last[0]!.content).toContain('echo: via loop');
    agent.close();

    // a restricted server: every tool needs approval from the loop
    const asked: string[] = [];
    const p2 = createScriptedProvider([
      { content: [{ type: 'tool_use', id: 'm2', name: 'mcp_echo_echo', input: { text: 'guarded' } }] },
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const guarded = openAgent(restrictedPath, {
      provider: p2,
      approver: {
        request: async (r) => {
          asked.push(r.task.tool);
          return { decision: 'deny', feedback: 'no' };
        },
      },
    });
    await guarded.connectMcpServers({
      createSandbox: (p) => createSandbox(p as never),
      readOnlyRoots: [nodePrefix],
      connectTimeoutMs: 60_000,
    });
    await guarded.send('echo');
    expect(asked).toEqual(['mcp_echo_echo']);
    expect(JSON.stringify(p2.requests[1]!.messages.at(-1)!.content)).toContain('TOOL_APPROVAL_DENIED');
    guarded.close();
  });

  it('an HTTP MCP server needs an egress client, and a server has a url or a command, not both', async () => {
    await expect(
      connectMcpServer({
        server: { ...server(), command: undefined, url: 'https://mcp.example.com/' },
        installedBy: 'owner',
        createSandbox: () => {
          throw new Error('unused');
        },
      }),
    ).rejects.toHaveTrustCode('MCP_HTTP_NO_EGRESS');
    await expect(
      connectMcpServer({ server: { ...server(), url: 'https://mcp.example.com/' }, installedBy: 'owner' }),
    ).rejects.toHaveTrustCode('MCP_SERVER_INVALID');
  });
});
