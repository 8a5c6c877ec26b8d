import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryAuditSink } from '@trust/core';
import { createSandbox } from '@trust/os-sandbox';
import { parseAgentConfig } from '../config/agent-config.js';
import { toolFlags } from '../gate/access-matrix.js';
import { createToolRegistry } from '../gate/tool-definition.js';
import { createMcpServers, type McpServers } from './mcp-servers.js';
import type { McpServiceTuning } from './mcp-service.js';
import type { McpLogRow } from './mcp-stderr-log.js';
import type { McpResourceLimits, McpServerConfig } from './mcp-session.js';

// Hostile stdio MCP servers (a script written for these tests) inside bubblewrap, run as services.
// Needs bwrap: these tests fail, not skip, when the sandbox cannot start.
const serverFile = realpathSync(fileURLToPath(new URL('./fixtures/hostile-mcp-server.mjs', import.meta.url)));
const nodePrefix = dirname(dirname(realpathSync(process.execPath)));
const open: McpServers[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

type Tuning = McpServiceTuning & { resources?: McpResourceLimits; maxLineBytes?: number; connectTimeoutMs?: number };
function serversOf(list: Array<[name: string, mode: string, extra?: Partial<McpServerConfig>]>, tuning: Tuning = {}) {
  const configs: McpServerConfig[] = list.map(([name, mode, extra]) => ({
    name,
    command: process.execPath,
    args: [serverFile, mode],
    env: {},
    capabilities: [`fs:ro:${dirname(serverFile)}`],
    ...extra,
  }));
  const config = parseAgentConfig({ v: 1, mcp: { servers: configs } });
  const registry = createToolRegistry();
  const logs: McpLogRow[] = [];
  const audit = createMemoryAuditSink();
  const servers = createMcpServers({ registry, config: () => config, log: (r) => logs.push(r) });
  open.push(servers);
  const started = servers.start(config.mcp.servers, () => ({
    installedBy: 'agent',
    createSandbox: (p) => createSandbox(p as never, { audit }),
    readOnlyRoots: [nodePrefix],
    connectTimeoutMs: 30_000,
    restart: { initialDelayMs: 50, maxDelayMs: 200, maxAttempts: 3 },
    ...tuning,
  }));
  started.catch(() => undefined);
  const call = (server: string, tool: string, args: Record<string, unknown> = {}, timeoutMs?: number) =>
    servers.service(server)!.callTool(tool, args, { maxTokens: 1_000_000, ...(timeoutMs ? { timeoutMs } : {}) });
  const health = (server: string) => servers.status().find((h) => h.server === server)!;
  return { servers, registry, logs, audit, config, started, call, health };
}
const waitFor = <T>(f: () => T) => vi.waitFor(f, { timeout: 30_000, interval: 50 });

describe('MCP servers are services in the OS sandbox', { timeout: 120_000 }, () => {
  // Regression (issue 37, gap 1): the sandbox's lifetime defaults (60 s, 1 MiB) applied to the
  // server: after 1 MiB of output every reply was dropped and the 9th call of 120 kB hung.
  it('has no lifetime budget: 12 calls of 120 kB, and the run has no wall-clock limit', async () => {
    const { started, call, audit } = serversOf([['h', 'normal']]);
    await started;
    for (let i = 0; i < 12; i++) expect((await call('h', 'big', { bytes: 120_000 })).content).toHaveLength(120_000);
    const spawn = audit.events().find((e) => e.action === 'sandbox.spawn' && e.decision === 'allow');
    expect(spawn?.details).toMatchObject({ timeoutMs: null, maxOutput: null, service: true });
  });

  it('bounds each call by its deadline (per server and per call), sends notifications/cancelled', async () => {
    const { started, call, health } = serversOf([['h', 'normal']], { callTimeoutMs: 400 });
    await started;
    await expect(call('h', 'slow', { ms: 5_000 })).rejects.toHaveTrustCode('MCP_CALL_TIMEOUT');
    await expect(call('h', 'slow', { ms: 5_000 }, 200)).rejects.toHaveTrustCode('MCP_CALL_TIMEOUT');
    expect((await call('h', 'slow', { ms: 10 }, 5_000)).content).toBe('slow done');
    expect((await call('h', 'cancelled')).content).toBe('2');
    expect(health('h')).toMatchObject({ state: 'ready', restarts: 0 });
  });

  // Regression (issue 37, gap 2): a 32 MiB line escaped a stream listener as an uncaught exception.
  it('refuses a 32 MiB line with a coded error, restarts only that server, and the host lives on', async () => {
    const { started, call, health } = serversOf([
      ['h', 'normal'],
      ['other', 'normal'],
    ]);
    await started;
    await expect(call('h', 'line', { bytes: 32 * 1024 * 1024 })).rejects.toThrow();
    await waitFor(() => expect(health('h').restarts).toBeGreaterThanOrEqual(1));
    await waitFor(() => expect(health('h').state).toBe('ready'));
    expect((await call('h', 'echo', { text: 'again' })).content).toBe('echo: again');
    expect(health('other')).toMatchObject({ state: 'ready', restarts: 0 });
  });

  it('a line over a lower limit marks the server degraded with MCP_LINE_TOO_LONG', async () => {
    const { started, call, health } = serversOf([['h', 'normal']], {
      maxLineBytes: 64 * 1024,
      restart: { initialDelayMs: 60_000, maxAttempts: 3 },
    });
    await started;
    await expect(call('h', 'big', { bytes: 100_000 })).rejects.toThrow();
    await waitFor(() => expect(health('h').state).toBe('degraded'));
    expect(health('h').reason?.code).toBeTrustCode('MCP_LINE_TOO_LONG');
  });

  // Regression (issue 37, gap 3): the SDK compiled and ran server output schemas with Ajv on the
  // host's thread: `^(a+)+$` against a near miss blocked the event loop for seconds to minutes.
  it('runs no server schema: a ReDoS output schema and a storm of 800 schemas leave the event loop free', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const redos = serversOf([['r', 'redos']]);
    await redos.started;
    expect((await redos.call('r', 'near_miss')).content).toBe('near miss');
    const storm = serversOf([['s', 'storm']], { toolList: { maxTools: 1000, maxListBytes: 8 * 1024 * 1024 } });
    await storm.started;
    delay.disable();
    expect(storm.health('s').tools.length).toBeGreaterThanOrEqual(800);
    expect(delay.max / 1e6).toBeLessThan(1_000);
  });

  it('caps tools/list: more tools than allowed are refused with a coded error', async () => {
    const { started, health } = serversOf([['s', 'storm']], { restart: { maxAttempts: 0 } });
    await expect(started).rejects.toHaveTrustCode('MCP_TOOLS_LIST_TOO_LARGE');
    expect(health('s')).toMatchObject({
      state: 'failed',
      reason: { code: expect.toBeTrustCode('MCP_TOOLS_LIST_TOO_LARGE') },
    });
  });

  // Regression (issue 37, gaps 4 and 5): `vault` + `ro_search` and `vault-ro` + `search` shared a
  // name; the registry kept the first silently, and the gate took flags by the longest prefix.
  it('keeps the two servers apart by name and by flags, and refuses a duplicate tool loudly', async () => {
    const { started, call, registry, config, health, logs } = serversOf([
      ['vault', 'vault', { restricted: true }],
      ['vault-ro', 'vaultro'],
      ['d', 'dup'],
    ]);
    await started;
    expect((await call('vault', 'ro_search')).content).toBe('answered by vault');
    expect((await call('vault-ro', 'search')).content).toBe('answered by vaultro');
    expect(registry.get('mcp_vault_ro_search')?.mcpServer).toBe('vault');
    expect(registry.get('mcp_vault__dro_search')?.mcpServer).toBe('vault-ro');
    const flags = (n: string) => toolFlags(config, n, registry.get(n)?.mcpServer);
    expect(flags('mcp_vault_ro_search')).toMatchObject({ restricted: true });
    expect(flags('mcp_vault__dro_search')).toMatchObject({ restricted: false });
    expect(health('vault').tools.find((t) => t.name === 'mcp_vault_ro_search')?.risk).toBe('approval');
    expect(health('d').refusedTools).toEqual([
      expect.objectContaining({ tool: 'echo', code: expect.toBeTrustCode('TOOL_ALREADY_REGISTERED') }),
    ]);
    expect(logs.some((l) => l.event === 'mcp.tool_refused' && l.target === 'd')).toBe(true);
  });

  it('bounds memory and processes', async () => {
    const { started, call } = serversOf([['h', 'normal']], { resources: { memoryBytes: 768 * 1024 ** 2, pids: 16 } });
    await started;
    const mem = await call('h', 'alloc', { mb: 1536 }).then(
      (r) => r.content,
      (e: Error) => `failed: ${e.message}`,
    );
    expect(mem).not.toBe('allocated 1536 MiB');
    await waitFor(async () => expect((await call('h', 'echo', { text: 'x' })).content).toBe('echo: x'));
    const forked = await call('h', 'fork', { n: 100 }).then(
      (r) => JSON.parse(r.content) as { started: number; refused: number },
      () => ({ started: 0, refused: 100 }),
    );
    expect(forked.started).toBeLessThan(16);
  });

  // Regression (issue 37, gap 6): a first server that never answered initialize stopped every later one.
  it('starts every server independently: a never-initialising first server does not delay the second', async () => {
    const { started, call, health } = serversOf(
      [
        ['hang', 'hang'],
        ['ok', 'normal'],
      ],
      { connectTimeoutMs: 20_000 },
    );
    await waitFor(() => expect(health('ok').state).toBe('ready'));
    expect(health('hang').state).toBe('starting');
    expect((await call('ok', 'echo', { text: 'first' })).content).toBe('echo: first');
    await expect(started).rejects.toHaveTrustCode('MCP_CONNECT_FAILED');
    expect(health('hang').state).not.toBe('ready');
  });

  it('restarts a server that crashed, with its stderr tail in the health', async () => {
    const { started, call, health, logs } = serversOf([['h', 'normal']]);
    await started;
    await expect(call('h', 'crash')).rejects.toThrow();
    await waitFor(() => expect(health('h').restarts).toBe(1));
    await waitFor(() => expect(health('h').state).toBe('ready'));
    expect((await call('h', 'echo', { text: 'back' })).content).toBe('echo: back');
    expect(health('h').stderrTail).toContain('hostile server (normal) up');
    expect(logs.some((l) => l.event === 'mcp.failed' && l.message.includes('MCP server h exited'))).toBe(true);
  });

  it('refreshes the tools on notifications/tools/list_changed, through the same naming', async () => {
    const { started, call, registry } = serversOf([['h', 'normal']]);
    await started;
    const added = () => registry.list().filter((t) => t.name.startsWith('mcp_h_added_'));
    expect(added()).toEqual([]);
    await call('h', 'add');
    await waitFor(() => expect(added().map((t) => t.mcpServer)).toEqual(['h']));
  });
});
