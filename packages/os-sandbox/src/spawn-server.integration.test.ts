// The launcher's spawn server (--serve), with real bubblewrap: how runs start, end and fail when
// the server itself goes away.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher } from './launcher.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { startSpawnServer } from './spawn-server.js';
import { encodeAck, encodeCommand, encodeRequest, WIRE_VERSION } from './launcher-wire.js';
import { alive, freshDir, parentOf, runIn } from './test-helpers.js';

/** A spawn server spoken to in its own protocol, with everything it has replied so far. */
async function rawServer(): Promise<{ server: ChildProcessWithoutNullStreams; replies: () => string }> {
  const launcher = await ensureLauncher();
  const server = spawn(launcher.path, ['--serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let replies = '';
  server.stdout.on('data', (c: Buffer) => (replies += c.toString()));
  return { server, replies: () => replies };
}

describe('the spawn server', () => {
  let sb: Sandbox;
  let dir: string;
  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    dir = freshDir('trust-spawn-server-');
    sb = await createSandbox({ v: 1, capabilities: ['stdin', 'stdout', 'stderr', `fs:rw:${dir}`] });
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts every run of a sandbox from one server process, with stdin, stdout and stderr as pipes', async () => {
    const pids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await sb.spawn(
        ['/bin/sh', '-c', 'cat; echo err >&2; ls -l /proc/self/fd/0 /proc/self/fd/1 | grep -c pipe'],
        { stdin: `in-${i}\n` },
      );
      pids.push(parentOf(p.pid));
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      p.stdout.on('data', (c: Buffer) => out.push(c));
      p.stderr.on('data', (c: Buffer) => err.push(c));
      const exit = await p.exit;
      expect(exit.code).toBe(0);
      expect(Buffer.concat(out).toString()).toBe(`in-${i}\n2\n`);
      expect(Buffer.concat(err).toString()).toBe('err\n');
    }
    expect(new Set(pids).size).toBe(1);
    expect(pids[0]).not.toBe(process.pid);
    expect(readFileSync(`/proc/${pids[0]}/cmdline`, 'utf8').split('\0')).toContain('--serve');
  });

  it(
    'the command starts as from a fresh exec: no signal ignored or ' +
      'blocked (a yes | head pipeline ends by SIGPIPE)',
    async () => {
      const r = await runIn(sb, [
        '/bin/sh',
        '-c',
        'grep -E "^Sig(Ign|Blk)" /proc/self/status; yes | head -n 1 >/dev/null; echo "yes:$?"',
      ]);
      expect(r.stdout).toBe('SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\nyes:0\n');
      expect(r.stderr).toBe('');
    },
  );

  it("spawnServer: false starts every run with this process's own spawn, just as well", async () => {
    const direct = await createSandbox({ v: 1, capabilities: ['stdin', 'stdout', 'stderr'] }, { spawnServer: false });
    try {
      const p = await direct.spawn(['/bin/sh', '-c', 'echo ready; cat'], { stdin: 'fed\n' });
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      await new Promise((ok) => p.stdout.once('data', ok));
      expect(parentOf(p.pid)).toBe(process.pid);
      expect((await p.exit).code).toBe(0);
      expect(out).toContain('fed');
    } finally {
      await direct.close();
    }
  });

  it('reports exit codes and signals as the run ended', async () => {
    expect((await runIn(sb, ['/bin/sh', '-c', 'exit 7'])).exit).toMatchObject({ code: 7, signal: null });
    // kill(): the supervising launcher SIGKILLs the run and exits as bwrap did, by that signal.
    const p = await sb.spawn(['/bin/sh', '-c', 'echo ready; exec sleep 60']);
    await new Promise((ok) => p.stdout.once('data', ok));
    p.kill();
    expect(await p.exit).toMatchObject({ code: null, signal: 'SIGKILL' });
  });

  it('a server killed mid-run ends that run (its lifeline closes), and the next run gets a new server', async () => {
    const p = await sb.spawn(['/bin/sh', '-c', 'echo ready; exec sleep 60']);
    await new Promise((ok) => p.stdout.once('data', ok));
    const server = parentOf(p.pid);
    process.kill(server, 'SIGKILL');
    const exit = await p.exit;
    expect(exit.code).toBeNull();
    expect(exit.signal).toBe('SIGKILL');
    const next = await sb.spawn(['/bin/sh', '-c', 'echo ready; exec sleep 60']);
    await new Promise((ok) => next.stdout.once('data', ok));
    expect(parentOf(next.pid)).not.toBe(server);
    expect(readFileSync(`/proc/${parentOf(next.pid)}/cmdline`, 'utf8').split('\0')).toContain('--serve');
    next.kill();
    expect((await next.exit).signal).toBe('SIGKILL');
  });

  it(
    'answers a malformed request body with F and EINVAL, and ' + 'stops at a frame of another version or kind',
    async () => {
      const { server, replies } = await rawServer();
      const u32 = (n: number): Buffer => Buffer.from(Uint32Array.of(n).buffer);
      const frame = (id: number, body: Buffer): Buffer =>
        Buffer.concat([Buffer.from([WIRE_VERSION, 0x52]), u32(id), u32(body.length), body]);
      // 7: one argument announced, three bytes of it given where ten were announced, no fields after;
      // 8: 2^32-1 arguments; 9: an argument holding a NUL ("--\0--ro-bind"); 10: a well-formed body
      // with a trailing byte too many.
      const bad7 = Buffer.concat([u32(1), u32(10), Buffer.from('--x')]);
      const bad8 = Buffer.concat([u32(0xffffffff), u32(2), Buffer.from('--')]);
      const bad9 = Buffer.concat([u32(1), u32(11), Buffer.from('--\0--ro-bind'), u32(0), u32(0), Buffer.from([0])]);
      const good = encodeRequest(10, { args: ['--', '/bin/true'], stdin: false, stdout: false, stderr: false });
      const bad10 = Buffer.concat([
        good.subarray(0, 6),
        u32(good.readUInt32LE(6) + 1),
        good.subarray(10),
        Buffer.from([0]),
      ]);
      server.stdin.write(Buffer.concat([frame(7, bad7), frame(8, bad8), frame(9, bad9), bad10]));
      for (let i = 0; i < 200 && replies().split('\n').length < 5; i++) await new Promise((ok) => setTimeout(ok, 10));
      expect(replies()).toBe('F 7 22\nF 8 22\nF 9 22\nF 10 22\n');
      // Version 2 of the format is not this server's: it exits.
      server.stdin.write(Buffer.concat([Buffer.from([2, 0x52]), u32(11), u32(0)]));
      const [code] = await new Promise<[number | null]>((ok) => server.once('exit', (c) => ok([c])));
      expect(code).toBe(125);
    },
  );

  it('refuses a command ("N") for a run that was not prepared, and leaves that run alone', async () => {
    const { server, replies } = await rawServer();
    try {
      // Run 11: `sleep 5`, started with its command.
      server.stdin.write(
        encodeRequest(11, { args: ['--', '/bin/sleep', '5'], stdin: false, stdout: false, stderr: false }),
      );
      for (let i = 0; i < 500 && !/^S 11 /m.test(replies()); i++) await new Promise((ok) => setTimeout(ok, 10));
      const pid = Number(replies().split('\n')[0]!.split(' ')[2]);
      server.stdin.write(encodeCommand(11, { argv: ['/bin/true'], env: {}, cwd: '/' }));
      for (let i = 0; i < 500 && !/^N 11$/m.test(replies()); i++) await new Promise((ok) => setTimeout(ok, 10));
      expect(replies()).toMatch(/^S 11 \d+ -1 -1 -1\nN 11\n$/);
      expect(alive(pid)).toBe(true);
      process.kill(pid, 'SIGKILL');
    } finally {
      server.kill('SIGKILL');
    }
  });

  it("keeps a run's pipe ends until the host has opened them, even when the run ended first", async () => {
    const { server, replies } = await rawServer();
    try {
      // Run 9: `echo done` with its stdout a pipe, no --args or seccomp bytes.
      server.stdin.write(
        encodeRequest(9, { args: ['--', '/bin/echo', 'done'], stdin: false, stdout: true, stderr: false }),
      );
      // Both the start and the end are reported before this host opens anything.
      for (let i = 0; i < 500 && !/^X 9 /m.test(replies()); i++) await new Promise((ok) => setTimeout(ok, 10));
      expect(replies()).toMatch(/^S 9 \d+ -1 \d+ -1\nX 9 0 0\n$/);
      const out = Number(replies().split('\n')[0]!.split(' ')[4]);
      const end = `/proc/${server.pid}/fd/${out}`;
      expect(readFileSync(end, 'utf8')).toBe('done\n');
      // Once acknowledged, the server lets its end go.
      server.stdin.write(encodeAck(9));
      for (let i = 0; i < 500 && existsSync(end); i++) await new Promise((ok) => setTimeout(ok, 10));
      expect(existsSync(end)).toBe(false);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('the client fails pending launches with a clear error once its server is gone', async () => {
    const launcher = await ensureLauncher();
    const server = startSpawnServer(launcher.path);
    server.close();
    for (let i = 0; i < 200 && server.alive; i++) await new Promise((ok) => setTimeout(ok, 10));
    expect(server.alive).toBe(false);
    await expect(
      server.launch({ args: ['--', '/bin/true'], stdin: false, stdout: false, stderr: false }),
    ).rejects.toThrow(/spawn server exited/);
    expect(server.usable).toBe(true);
    // A server that never started: not usable (the sandbox then spawns runs itself), and it says why.
    const none = startSpawnServer('/nonexistent/trust-sandbox-launcher');
    expect(none.usable).toBe(false);
    await expect(
      none.launch({ args: ['--', '/bin/true'], stdin: false, stdout: false, stderr: false }),
    ).rejects.toThrow(/ENOENT/);
  });

  it('an idle sandbox does not keep its process alive; the server then ends with it', async () => {
    const dist = new URL('../dist/index.js', import.meta.url).pathname;
    expect(existsSync(dist), 'build @trust/os-sandbox first (dist/index.js)').toBe(true);
    const script = join(dir, 'idle.mjs');
    writeFileSync(
      script,
      `import { createSandbox } from ${JSON.stringify(dist)};\n` +
        `const sb = await createSandbox({ v: 1, capabilities: ['stdout'] });\n` +
        `const p = await sb.spawn(['/bin/true']);\n` +
        `process.stdout.write(JSON.stringify({ code: (await p.exit).code, pid: p.pid }));\n`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    // Never closed, and still the process ends by itself once its run is over.
    const code = await new Promise<number | null>((ok) => child.once('close', ok));
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ code: 0 });
  });
});
