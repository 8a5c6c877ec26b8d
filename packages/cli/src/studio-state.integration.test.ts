// .studio.json is believed only when its process is alive and its port answers as this studio.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertNoLiveStudio, readStudioState, studioStateFile, writeStudioState } from './studio-state.js';

const TOKEN = 'studio-test-token';
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

function workspace(state?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'studio-state-'));
  writeFileSync(join(dir, '.control-token'), `${TOKEN}\n`, { mode: 0o600 });
  if (state !== undefined)
    writeFileSync(studioStateFile(dir), typeof state === 'string' ? state : JSON.stringify(state));
  return dir;
}

/** A loopback server answering the control API's agent list for `token` only. */
async function controlLike(token = TOKEN): Promise<number> {
  const server = createServer((req, res) => {
    res.statusCode = req.headers.authorization === `Bearer ${token}` ? 200 : 401;
    res.end('{}');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** A pid that existed and is gone. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

async function closedPort(): Promise<number> {
  const port = await controlLike();
  const s = servers.pop()!;
  await new Promise((r) => s.close(r));
  return port;
}

describe('the studio state file', () => {
  it('is believed when the pid is alive and the port answers with the workspace token', async () => {
    const port = await controlLike();
    const dir = workspace({ v: 1, port, pid: process.pid });
    expect(await readStudioState(dir)).toEqual({ port, token: TOKEN });
    await expect(assertNoLiveStudio(dir)).rejects.toHaveTrustCode('STUDIO_ALREADY_RUNNING');
  });

  it.each([
    ['a killed studio (dead pid)', async () => ({ v: 1, port: await controlLike(), pid: deadPid() })],
    ['a live pid whose port no longer answers', async () => ({ v: 1, port: await closedPort(), pid: process.pid })],
    [
      'a port answering for another token (someone else\u2019s server)',
      async () => ({ v: 1, port: await controlLike('other'), pid: process.pid }),
    ],
    ['a damaged file', async () => '{"port": "7385"'],
  ])('is stale for %s: removed, STUDIO_NOT_RUNNING, and a new studio may replace it', async (_n, make) => {
    const dir = workspace(await make());
    await expect(readStudioState(dir)).rejects.toHaveTrustCode('STUDIO_NOT_RUNNING');
    expect(existsSync(studioStateFile(dir))).toBe(false);
    writeFileSync(studioStateFile(dir), JSON.stringify({ v: 1, port: 1, pid: deadPid() }));
    await expect(assertNoLiveStudio(dir)).resolves.toBeUndefined();
    const port = await controlLike();
    writeStudioState(dir, { port, pid: process.pid });
    expect(await readStudioState(dir)).toEqual({ port, token: TOKEN });
  });
});
