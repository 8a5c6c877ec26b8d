import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAdf,
  createScriptedProvider,
  defaultAgentConfig,
  type ModelRequest,
  type ModelResponse,
} from '@trust/agent-runtime';
import { type Peer, createStubResolver, startPeer } from '@trust/testing';
import { call } from './control/control-fixture.test-helper.js';
import { type Workspace, openWorkspace } from './open-workspace.js';

// The workspace host end to end: real agents (SQLite files, the real loop and gate), a loopback
// HTTP/WebSocket peer and an MCP server over HTTP in child processes, names answered by a test
// resolver. Every outbound request goes through the workspace's one egress engine, compiled from
// <workspace>/egress-policy.json, and every decision lands in the calling agent's own chain.

const MCP_TOKEN = 'mcp-secret-token';
const mcpServerFile = fileURLToPath(new URL('./control/fixtures/echo-mcp-http-server.mjs', import.meta.url));

/** A scripted model: a user message `{"tool","input"}` becomes that tool call; a tool result ends the turn with it. */
function toolCaller(request: ModelRequest): ModelResponse {
  const usage = { inputTokens: 0, outputTokens: 0 };
  const last = request.messages[request.messages.length - 1];
  const blocks = Array.isArray(last?.content) ? last.content : [];
  const result = blocks.find((b) => b.type === 'tool_result');
  if (result && result.type === 'tool_result')
    return {
      content: [{ type: 'text', text: `${result.isError ? 'ERROR ' : 'OK '}${String(result.content).slice(0, 500)}` }],
      stopReason: 'end_turn',
      usage,
      model: 'scripted',
    };
  const text = typeof last?.content === 'string' ? last.content : '';
  const { tool, input } = JSON.parse(text) as { tool: string; input: Record<string, unknown> };
  return {
    content: [{ type: 'tool_use', id: `t${request.messages.length}`, name: tool, input }],
    stopReason: 'tool_use',
    usage,
    model: 'scripted',
  };
}

let dir: string;
let peer: Peer;
let mcp: ChildProcess;
let mcpPort = 0;
let ws: Workspace;
const warnings: string[] = [];

const policy = (allow: string[]) =>
  JSON.stringify({
    v: 1,
    http: { allow, inject: [{ hosts: ['mcp.test'], headers: { authorization: `Bearer ${MCP_TOKEN}` } }] },
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'open-workspace-'));
  mkdirSync(join(dir, 'agents'));
  peer = await startPeer({ routes: { '/ok': { kind: 'text', body: 'hello from the peer' } } });
  mcp = spawn(process.execPath, [mcpServerFile, MCP_TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
  mcpPort = await new Promise<number>((resolve, reject) => {
    mcp.once('error', reject);
    mcp.once('exit', (code) => reject(new Error(`MCP HTTP fixture exited with ${code}`)));
    mcp.stdout!.once('data', (c: Buffer) => resolve(Number.parseInt(c.toString('utf8'), 10)));
  });
  const base = defaultAgentConfig({ name: 'fetcher' });
  // The owner enables ws_connect (off and locked by default) for this agent.
  const tools = base.tools.map((t) =>
    t.name === 'ws_connect' ? { name: 'ws_connect', enabled: true, visible: true } : t,
  );
  createAdf(join(dir, 'agents', 'fetcher.adf'), { template: { ...base, tools } }).close();
  const withMcp = defaultAgentConfig({ name: 'mcp-user' });
  createAdf(join(dir, 'agents', 'mcp-user.adf'), {
    template: { ...withMcp, mcp: { servers: [{ name: 'web', url: `http://mcp.test:${mcpPort}/mcp` }] } },
  }).close();
  const listener = defaultAgentConfig({ name: 'listener' });
  createAdf(join(dir, 'agents', 'listener.adf'), {
    template: { ...listener, messaging: { ...listener.messaging, receive: true } },
  }).close();
  writeFileSync(join(dir, 'egress-policy.json'), policy(['allowed.test', 'mcp.test']));
  const resolve = createStubResolver({
    'allowed.test': [peer.host],
    'denied.test': [peer.host],
    'later.test': [peer.host],
    'mcp.test': ['127.0.0.1'],
  });
  ws = await openWorkspace(dir, {
    env: {},
    home: join(dir, '.trust'),
    demo: true,
    scripted: () => createScriptedProvider(Array.from({ length: 100 }, () => toolCaller)),
    resolve,
    onWarning: (m) => warnings.push(m),
  });
});

afterAll(async () => {
  await ws?.close();
  await peer?.close();
  mcp?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

const api = async (method: string, path: string, body?: unknown) => {
  const r = await call(ws.port, {
    method,
    path: `/api/v1${path}`,
    headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers of the control API
  return { status: r.status, json: r.json<any>() };
};

/** Asks `agent` to call `tool`; answers the text of the turn's last assistant message. */
async function toolCall(agent: string, tool: string, input: Record<string, unknown>): Promise<string> {
  const sent = await api('POST', `/agents/${agent}/chat`, { text: JSON.stringify({ tool, input }) });
  expect(sent.status).toBe(200);
  const turns = (await api('GET', `/agents/${agent}/chat`)).json.turns as {
    role: string;
    content: string;
    tool?: unknown;
  }[];
  return turns.filter((t) => t.role === 'assistant' && t.tool === undefined).at(-1)?.content ?? '';
}

interface Row {
  action: string;
  target: string;
  decision: string;
  principal: { id: string; agent?: string };
}
const egressRows = async (agent: string): Promise<Row[]> =>
  ((await api('GET', `/agents/${agent}/audit`)).json.events as Row[]).filter((e) => e.action.startsWith('egress.'));

describe('openWorkspace: one egress engine for the workspace', () => {
  it("runs the workspace file's policy: sys_fetch to a listed host answers, another is denied", async () => {
    expect(ws.egress.status()).toMatchObject({ source: 'file' });
    const ok = await toolCall('fetcher', 'sys_fetch', { url: `http://allowed.test:${peer.httpPort}/ok` });
    expect(ok).toContain('hello from the peer');
    const no = await toolCall('fetcher', 'sys_fetch', { url: `http://denied.test:${peer.httpPort}/ok` });
    expect(no).toMatch(/^ERROR/);
    const rows = await egressRows('fetcher');
    expect(rows.map((r) => [r.decision, new URL(r.target).hostname])).toEqual(
      expect.arrayContaining([
        ['allow', 'allowed.test'],
        ['deny', 'denied.test'],
      ]),
    );
    // The peer saw only the allowed request.
    expect((await peer.requests()).map((r) => r.headers.host)).not.toContain(`denied.test:${peer.httpPort}`);
    // The unified timeline shows both decisions under the agent.
    const timeline = (await api('GET', '/audit')).json;
    const text = JSON.stringify(timeline);
    expect(text).toContain('denied.test');
    expect(text).toContain('allowed.test');
  });

  it('a save through PUT /policy/file applies to the next request; a refused file keeps the old policy', async () => {
    const url = `http://later.test:${peer.httpPort}/ok`;
    expect(await toolCall('fetcher', 'sys_fetch', { url })).toMatch(/^ERROR/);
    const current = (await api('GET', '/policy/file')).json;
    const saved = await api('PUT', '/policy/file', {
      text: policy(['allowed.test', 'mcp.test', 'later.test']),
      sha256: current.sha256,
    });
    expect(saved.status).toBe(200);
    expect(saved.json.engine).toMatchObject({ source: 'file', sha256: saved.json.sha256 });
    expect(await toolCall('fetcher', 'sys_fetch', { url })).toContain('hello from the peer');
    // A file the validator passes but that cannot compile (an unset variable): the old policy keeps running.
    const bad = JSON.stringify({
      v: 1,
      http: {
        allow: ['allowed.test'],
        inject: [{ hosts: ['allowed.test'], headers: { authorization: { env: 'UNSET_TOKEN' } } }],
      },
    });
    const refused = await api('PUT', '/policy/file', { text: bad, sha256: saved.json.sha256 });
    expect(refused.status).toBe(200);
    expect(refused.json.engine.problem).toHaveTrustCode('WORKSPACE_POLICY_INVALID');
    expect(refused.json.engine.sha256).toBe(saved.json.sha256);
    expect(warnings.join('\n')).toMatch(/previous one keeps running/);
    expect(await toolCall('fetcher', 'sys_fetch', { url })).toContain('hello from the peer');
  });

  it('ws_connect reaches a loopback WebSocket peer through the engine, and is audited', async () => {
    const answer = await toolCall('fetcher', 'ws_connect', { url: `ws://allowed.test:${peer.httpPort}/echo` });
    expect(answer).toMatch(/^OK/);
    const rows = await egressRows('fetcher');
    expect(rows.some((r) => r.decision === 'allow' && r.target.startsWith('ws://allowed.test'))).toBe(true);
  });

  it('the control port is never reachable, whatever the policy allows', async () => {
    const answer = await toolCall('fetcher', 'sys_fetch', { url: `http://127.0.0.1:${ws.port}/api/v1/agents` });
    expect(answer).toMatch(/^ERROR/);
  });

  it('an MCP url server connects through the engine (credential injected) as mcp:<agent>/<server>', async () => {
    expect((await api('POST', '/agents/mcp-user/start', {})).status).toBe(200);
    const live = (await api('GET', '/agents/mcp-user/runtime')).json.runtime.mcp as {
      name: string;
      live: { state: string; detail?: string };
    }[];
    expect(live.find((m) => m.name === 'web')?.live).toMatchObject({ state: 'connected' });
    const rows = await egressRows('mcp-user');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.principal.id === 'mcp:mcp-user/web')).toBe(true);
    expect(rows.some((r) => r.decision === 'allow' && r.target.startsWith(`http://mcp.test:${mcpPort}/mcp`))).toBe(
      true,
    );
  });
});

describe('openWorkspace: identities and messages between its agents', () => {
  const didOf = async (agent: string): Promise<string> =>
    (await api('GET', `/agents/${agent}/runtime`)).json.runtime.identity.did as string;

  it('every agent has a did:key from its first open, sealed to the workspace keys', async () => {
    const [a, b] = [await didOf('fetcher'), await didOf('listener')];
    expect(a).toMatch(/^did:key:z6Mk/);
    expect(b).toMatch(/^did:key:z6Mk/);
    expect(a).not.toBe(b);
  });

  it('msg_send delivers a signed message over the workspace mesh; both sides audit it', async () => {
    const to = await didOf('listener');
    const from = await didOf('fetcher');
    const answer = await toolCall('fetcher', 'msg_send', { to, content: 'hello listener' });
    expect(answer).toMatch(/^OK/);
    expect(answer).toContain('delivered');
    const sent = (await api('GET', '/agents/fetcher/audit')).json.events as Row[];
    expect(sent.some((e) => e.action === 'message.send' && e.decision === 'allow' && e.target === to)).toBe(true);
    const received = (await api('GET', '/agents/listener/audit')).json.events as Row[];
    const rows = received.filter((e) => e.action === 'message.receive');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((e) => e.decision === 'allow')).toBe(true);
    expect(JSON.stringify(rows)).toContain(from);
  });
});
