import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, createTempHome, runCli } from './run-cli.test-helper.js';
import { studioSchema } from './json-schemas.js';

// `trust studio <workspace>` (the built binary): starting an agent connects the MCP servers its
// config names, each stdio server inside the OS sandbox (needs bwrap: fails, never skips). The
// echo server is the runtime's MCP fixture, copied beside the workspace (the only files it may read).
const fixture = fileURLToPath(new URL('../../agent-runtime/src/mcp/fixtures/echo-mcp-server.mjs', import.meta.url));
const tmp = createTempHome();
const ws = join(tmp.home, 'ws');
const serverDir = join(tmp.home, 'mcp-server');
const serverFile = join(serverDir, 'echo-mcp-server.mjs');

interface McpLive {
  readonly name: string;
  readonly live: { readonly state: string; readonly detail?: string };
}

beforeAll(async () => {
  mkdirSync(serverDir, { recursive: true });
  copyFileSync(fixture, serverFile);
  const dir = realpathSync(serverDir);
  const template = join(tmp.home, 'tooler.json');
  writeFileSync(
    template,
    JSON.stringify({
      v: 1,
      mcp: {
        servers: [
          {
            name: 'echo',
            command: process.execPath,
            args: [join(dir, 'echo-mcp-server.mjs')],
            capabilities: [`fs:ro:${dir}`],
          },
          { name: 'broken', command: '/nonexistent/mcp-server', args: [], capabilities: [] },
        ],
      },
    }),
  );
  const made = await runCli(['agent', 'new', join(ws, 'agents', 'tooler.adf'), '--template', template], {
    home: tmp.home,
  });
  expect(made.code, made.stderr).toBe(0);
}, 60_000);
afterAll(() => tmp.cleanup());

describe('trust studio: MCP servers of a started agent (built binary, real sandbox)', () => {
  it('connects a sandboxed stdio server on start; a server whose command fails is failed with its error', async () => {
    const child = spawn(process.execPath, [BIN, 'studio', ws, '--json'], {
      cwd: tmp.home,
      env: { PATH: process.env.PATH ?? '', HOME: tmp.home, TRUST_HOME: tmp.trustHome },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    try {
      const first = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('\n')) resolve(out.split('\n')[0] as string);
        });
        child.on('exit', (c) => reject(new Error(`studio exited ${c}: ${err}`)));
      });
      const doc = studioSchema.parse(JSON.parse(first)).result;
      const token = doc.url.split('#token=')[1] as string;
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`http://127.0.0.1:${doc.port}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, json: (await res.json()) as Record<string, unknown> };
      };
      const live = async () =>
        ((await api('GET', '/agents/tooler/runtime')).json as { runtime: { mcp: McpLive[] } }).runtime.mcp;

      expect((await live()).map((m) => m.live.state)).toEqual(['agent-not-running', 'agent-not-running']);
      const started = await api('POST', '/agents/tooler/start', {});
      expect(started.status, JSON.stringify(started.json)).toBe(200);
      const [echo, broken] = await live();
      expect(echo?.live, JSON.stringify(echo)).toMatchObject({ state: 'connected' });
      // Placed in the sandbox, not on the host.
      expect(echo?.live.detail).toMatch(/^sandbox; [1-9]\d* tools$/);
      expect(broken?.live).toMatchObject({ state: 'failed' });
      expect(broken?.live.detail).toMatch(/^MCP_CONNECT_FAILED: could not connect MCP server broken/);
    } finally {
      const code = await new Promise<number | null>((resolve) => {
        child.on('exit', (c) => resolve(c));
        child.kill('SIGINT');
      });
      expect(code, err).toBe(0);
    }
  }, 180_000);
});
