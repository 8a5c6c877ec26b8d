// MCP: a tool call round trip through the gate and trust's MCP service (a host-placed server, no
// sandbox, so both sides pay the same process) against a direct SDK client call to the same server;
// and the event loop's p99 delay while the server floods notifications.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createMemoryAuditSink } from '@trust/core';
import { createAdf } from '@trust/agent-runtime';
import { createToolGate, createToolRegistry } from '@trust/agent-runtime/gate';
import { createMcpServers } from '@trust/agent-runtime/mcp';
import { percentile, sampleInterleaved } from '../lib/table.mjs';

// The SDK is agent-runtime's dependency: the baseline loads the same copy from there.
const sdk = createRequire(new URL('../../packages/agent-runtime/package.json', import.meta.url));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');
const serverFile = fileURLToPath(
  new URL('../../packages/agent-runtime/src/mcp/fixtures/hostile-mcp-server.mjs', import.meta.url),
);

export default async function run({ log }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-mcp-'));
  const server = { name: 'h', command: process.execPath, args: [serverFile, 'normal'], env: {}, capabilities: [] };
  const adf = createAdf(join(dir, 'a.adf'), {
    template: { v: 1, mcp: { servers: [server] }, tools: [{ name: 'mcp_h_echo', enabled: true, visible: true }] },
  });
  const registry = createToolRegistry();
  const servers = createMcpServers({ registry, config: () => adf.config(), log: () => undefined });
  const direct = new Client({ name: 'bench', version: '1' });
  try {
    await servers.start(adf.config().mcp.servers, () => ({ installedBy: 'owner', runOn: 'host' }));
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [serverFile, 'normal'] }));
    const gate = createToolGate({ adf, registry, audit: createMemoryAuditSink() });
    const args = { text: 'hi' };
    for (let i = 0; i < 100; i++) {
      await gate.call('mcp_h_echo', args, { origin: 'llm' });
      await direct.callTool({ name: 'echo', arguments: args });
    }
    const { ours, sdk } = await sampleInterleaved(
      {
        ours: () => gate.call('mcp_h_echo', args, { origin: 'llm' }),
        sdk: () => direct.callTool({ name: 'echo', arguments: args }),
      },
      1000,
    );
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    await servers.service('h').callTool('flood', { n: 20_000 }, { maxTokens: 1000 });
    await servers.service('h').callTool('echo', args, { maxTokens: 1000 });
    delay.disable();
    const loopP99 = delay.percentile(99) / 1e6;
    log(`mcp call p50 ${percentile(ours, 50)} ns vs ${percentile(sdk, 50)} ns; loop p99 ${loopP99.toFixed(1)} ms`);
    return [
      {
        measure: 'MCP tool call through the gate, p50',
        unit: 'ns/call',
        ours: percentile(ours, 50),
        baseline: percentile(sdk, 50),
        baselineName: 'direct SDK client',
        better: 'lower',
        target: { ratio: 1.5 },
      },
      {
        measure: 'MCP tool call through the gate, p99',
        unit: 'ns/call',
        ours: percentile(ours, 99),
        baseline: percentile(sdk, 99),
        baselineName: 'direct SDK client',
        better: 'lower',
        target: { ratio: 1.5 },
      },
      {
        measure: 'event loop p99 while a server floods 20 000 notifications',
        unit: 'ms',
        ours: Math.round(loopP99 * 10) / 10,
        better: 'lower',
        target: { max: 20 },
      },
    ];
  } finally {
    await direct.close().catch(() => undefined);
    await servers.close();
    adf.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
