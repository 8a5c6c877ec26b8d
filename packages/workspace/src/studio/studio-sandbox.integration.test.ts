import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createStudioSandbox } from './studio-sandbox.js';

// A Node outside /usr (the Node 24 leg's own build) is visible in the sandbox only with a read grant.
const nodeCaps = process.execPath.startsWith('/usr/') ? [] : [`fs:ro:${dirname(dirname(process.execPath))}`];

// The studio's sandbox host with real bubblewrap: bounded concurrency, the spawn boundary's
// refusals before anything starts, kill, close, and the run log record. Fails without bwrap.
const home = mkdtempSync(join(tmpdir(), 'trust-studio-sandbox-'));
const tmp = { trustHome: join(home, '.trust'), cleanup: () => rmSync(home, { recursive: true, force: true }) };
const runsFile = join(tmp.trustHome, 'sandbox-runs.jsonl');
const host = createStudioSandbox({
  runsFile,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  launcherCacheDir: join(tmp.trustHome, 'cache', 'launcher'),
  maxConcurrent: 2,
});
afterAll(async () => {
  await host.close();
  tmp.cleanup();
});

const POLICY = { v: 1, capabilities: ['stdout', 'stderr'] };
const records = () =>
  existsSync(runsFile)
    ? readFileSync(runsFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; exitCode: number | null; signal: string | null })
    : [];

async function waitExit(id: string) {
  for (let after = 0; ; ) {
    const page = await host.events(id, after, 10_000);
    after = page.next;
    const exit = page.events.find((e) => e.kind === 'exit');
    if (exit) return exit;
  }
}

// A raw HTTP request through the run's proxy (HTTP_PROXY), printing the status line.
const viaProxy = (port: number) =>
  "const u=new URL(process.env.HTTP_PROXY);const s=require('net').connect(+u.port,u.hostname,()=>" +
  `s.write('GET http://127.0.0.1:${port}/x HTTP/1.1\\r\\nHost: 127.0.0.1:${port}\\r\\n` +
  "Connection: close\\r\\n\\r\\n'));" +
  "let b='';s.on('data',(d)=>(b+=d));s.on('end',()=>console.log(b.split('\\r\\n')[0]))";

describe('studio sandbox host (real bwrap)', () => {
  it("a run allowed 127.0.0.1 still cannot reach the host's protected port (the control server's)", async () => {
    const seen: string[] = [];
    const api = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('control api');
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    const port = (api.address() as { port: number }).port;
    const guarded = createStudioSandbox({
      runsFile,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      launcherCacheDir: join(tmp.trustHome, 'cache', 'launcher'),
      protectedPorts: () => [port],
    });
    try {
      const r = await guarded.start({
        argv: [process.execPath, '-e', viaProxy(port)],
        policy: { v: 1, capabilities: ['stdout', 'stderr', 'http', ...nodeCaps] },
        egress: { v: 1, http: { allow: [`127.0.0.1:${port}`] }, guard: { mode: 'allow-local' } },
      });
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      await (async () => {
        for (let after = 0; ; ) {
          const page = await guarded.events(r.run.id, after, 10_000);
          after = page.next;
          if (page.state === 'exited') return;
        }
      })();
      const events = (await guarded.events(r.run.id, 0, 0)).events;
      expect(events.find((e) => e.kind === 'output')).toMatchObject({ text: expect.stringContaining('403') });
      expect(events.filter((e) => e.kind === 'egress')).toEqual([
        expect.objectContaining({ decision: 'deny', code: expect.stringContaining('PROTECTED') }),
      ]);
      expect(seen).toEqual([]);
    } finally {
      await guarded.close();
      await new Promise<void>((r) => api.close(() => r()));
    }
  });

  it('runs a command, streams its output as events and records the run like trust sandbox', async () => {
    const r = await host.start({ argv: ['sh', '-c', 'echo out; echo err >&2'], policy: POLICY });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    await waitExit(r.run.id);
    const events = (await host.events(r.run.id, 0, 0)).events;
    expect(events.filter((e) => e.kind === 'output')).toEqual([
      expect.objectContaining({ stream: 'stdout', text: 'out\n' }),
      expect.objectContaining({ stream: 'stderr', text: 'err\n' }),
    ]);
    expect(records().find((x) => x.id === r.run.id)).toMatchObject({ exitCode: 0 });
    expect(host.get(r.run.id).state).toBe('exited');
  });

  it("never shows or records a policy's literal header value", async () => {
    const secret = 'Bearer sk-studio-literal-7';
    const egress = {
      v: 1,
      http: {
        allow: ['api.example.com'],
        inject: [{ hosts: ['api.example.com'], headers: { authorization: secret } }],
      },
    };
    const r = await host.start({ argv: ['true'], policy: { v: 1, capabilities: ['http'] }, egress });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    await waitExit(r.run.id);
    const shown = [JSON.stringify(r.run), JSON.stringify(host.get(r.run.id)), JSON.stringify(host.list())];
    for (const text of shown) expect(text).not.toContain('sk-studio-literal-7');
    expect(JSON.stringify(host.get(r.run.id).egress)).toContain('"authorization":"[literal value not recorded]"');
    expect(readFileSync(runsFile, 'utf8')).not.toContain('sk-studio-literal-7');
  });

  it('gives a run its standard input text (the stdin grant), like trust sandbox --cap stdin', async () => {
    const r = await host.start({
      argv: ['cat'],
      policy: { v: 1, capabilities: ['stdout', 'stdin'] },
      stdin: 'piped in\nsecond line\n',
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    await waitExit(r.run.id);
    const out = (await host.events(r.run.id, 0, 0)).events.filter((e) => e.kind === 'output');
    expect(out.map((e) => (e as { text: string }).text).join('')).toBe('piped in\nsecond line\n');
  });

  it('refuses a NUL byte in argv at the sandbox boundary: nothing starts, nothing is recorded', async () => {
    const before = records().length;
    const r = await host.start({ argv: ['echo', 'x\0--bind'], policy: POLICY });
    expect(r).toEqual({
      ok: false,
      problems: [expect.objectContaining({ code: expect.toBeTrustCode('SANDBOX_ARGV_INVALID'), path: 'argv.1' })],
    });
    expect(records()).toHaveLength(before);
    expect(host.list().every((run) => !run.argv.includes('x\0--bind'))).toBe(true);
  });

  it('a granted directory that does not exist is a problem in place, from the sandbox itself', async () => {
    const r = await host.start({ argv: ['true'], policy: { v: 1, capabilities: ['fs:ro:/nonexistent-dir-of-test'] } });
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems.map((p) => p.code)).toContain('SANDBOX_GRANT_MISSING');
  });

  it('holds at most maxConcurrent runs; a kill ends one, frees its slot and is recorded as killed', async () => {
    const a = await host.start({ argv: ['sleep', '30'], policy: POLICY });
    const b = await host.start({ argv: ['sleep', '30'], policy: POLICY });
    if (!a.ok || !b.ok) throw new Error('the two runs should start');
    await expect(host.start({ argv: ['true'], policy: POLICY })).rejects.toHaveTrustCode('CONTROL_BUSY');
    const killed = await host.kill(a.run.id);
    expect(killed.state).toBe('exited');
    expect((await waitExit(a.run.id)).exit).toMatchObject({ killed: true, code: null });
    await expect(host.kill(a.run.id)).rejects.toHaveTrustCode('CONTROL_CONFLICT');
    const c = await host.start({ argv: ['true'], policy: POLICY });
    expect(c.ok).toBe(true);
    if (c.ok) await waitExit(c.run.id);
    expect(records().find((x) => x.id === a.run.id)).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    // close() kills what still runs.
    await host.close();
    expect(host.get(b.run.id).state).toBe('exited');
  });
});
