import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf } from '@trust/agent-runtime';
import { defaultAgentConfig } from '@trust/agent-runtime';
import { createScriptedProvider } from '@trust/agent-runtime';
import { createAgentOpener } from './agent-runtime-hooks.js';
import type { AgentRuntimeView } from './agent-registry.js';
import { call } from './control-fixture.test-helper.js';
import { createControlServer, type ControlServer } from './control-server.js';
import { createWorkspaceAgents } from './workspace-agents.js';

// The MCP panel's live state, from the running agent: a real MCP server process (the echo
// fixture, owner-installed on the host), one whose command does not exist, and one never tried.
const serverFile = realpathSync(fileURLToPath(new URL('./fixtures/echo-mcp-server.mjs', import.meta.url)));
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'detail-mcp-'));
  const config = {
    ...defaultAgentConfig({ name: 'tooler' }),
    mcp: {
      servers: [
        { name: 'echo', command: process.execPath, args: [serverFile], capabilities: [] },
        { name: 'broken', command: '/nonexistent/mcp-server', args: [], capabilities: [] },
        { name: 'later', command: process.execPath, args: [serverFile], capabilities: [] },
      ],
    },
  };
  createAdf(join(dir, 'tooler.adf'), { template: config }).close();
  agents = createWorkspaceAgents({
    dir,
    open: createAgentOpener({
      provider: () => createScriptedProvider([]),
      mcp: () => ({
        installedBy: () => 'owner',
        runOn: () => 'host',
        readOnlyRoots: [dirname(dirname(realpathSync(process.execPath)))],
        connectTimeoutMs: 60_000,
      }),
    }),
  });
  server = await createControlServer({ agents, tokenFile: join(dir, 'token') });
});
afterAll(async () => {
  await server.close();
  agents.close();
});

const api = (method: string, path: string, body?: unknown) =>
  call(server.port, {
    method,
    path: `/api/v1${path}`,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const live = async () =>
  (await api('GET', '/agents/tooler/runtime')).json<{ runtime: AgentRuntimeView }>().runtime.mcp.map((m) => ({
    name: m.name,
    ...m.live,
  }));

describe('MCP servers: live state of a running agent', () => {
  it('says "agent not running" before the agent starts', async () => {
    expect((await live()).map((m) => m.state)).toEqual(['agent-not-running', 'agent-not-running', 'agent-not-running']);
  });

  it('after start: connected (a real server), failed with its error, and the next one connected anyway', async () => {
    expect((await api('POST', '/agents/tooler/start', {})).status).toBe(200);
    const [echo, broken, later] = await live();
    expect(echo).toMatchObject({ name: 'echo', state: 'connected' });
    expect(echo?.detail).toMatch(/^host; [1-9]\d* tools$/);
    expect(broken).toMatchObject({ name: 'broken', state: 'failed' });
    expect(broken?.detail).toMatch(/^MCP_CONNECT_FAILED: could not connect MCP server broken/);
    // Every server starts on its own: one that fails never keeps the next from connecting.
    expect(later).toMatchObject({ name: 'later', state: 'connected' });
    // The failure is in the agent's log too, for the Logs tab.
    const logs = (await api('GET', '/agents/tooler/logs?level=error')).json<{ logs: { event: string }[] }>().logs;
    expect(logs.map((l) => l.event)).toContain('mcp.failed');
  });
});
