// Timeouts, kill, output caps, parent death and resource limits with real bubblewrap.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './sandbox.js';
import { readAll } from './output-capture.js';
import { childrenOf, freshDir, hostPidsWith, runIn, waitGone } from './test-helpers.js';

/**
 * Writes a host script (into `dir`) that creates a sandbox from the built package, spawns two
 * `sleep m` in it, then runs `after` with the handle as `p`; returns the script's path.
 */
function parentScript(dir: string, name: string, m: string, after: string, options = '{}'): string {
  const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  expect(existsSync(dist), 'build @trust/os-sandbox first (dist/index.js)').toBe(true);
  const script = join(dir, name);
  writeFileSync(
    script,
    `import { createSandbox } from ${JSON.stringify(dist)};
     const sb = await createSandbox({ v: 1, capabilities: ['stdout'] }, ${options});
     const p = await sb.spawn(['/bin/sh', '-c', 'sleep ${m} & sleep ${m}']);
     ${after}`,
  );
  return script;
}

/** A `sleep` whose argument is unique, so its host processes can be found. */
const marker = (): string => `${9000 + randomInt(999)}.${randomInt(1_000_000)}`;

describe('lifecycle (bubblewrap)', () => {
  let ws: string;
  let sb: Sandbox;
  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    ws = freshDir('trust-life-');
    // Each run removes its own placeholders when it ends (the default keeps them a while).
    sb = await createSandbox(
      { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr', 'stdin'] },
      { placeholderLingerMs: 0 },
    );
  });
  afterAll(async () => {
    await sb?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it('a timeout kills the whole forking process tree', async () => {
    const m = marker();
    const p = await sb.spawn(
      ['/bin/sh', '-c', `sleep ${m} & (sleep ${m} &) ; sh -c "sleep ${m}" & echo started; wait`],
      { timeoutMs: 400 },
    );
    const out = readAll(p.stdout);
    const exit = await p.exit;
    expect(await out).toContain('started');
    expect(exit.timedOut).toBe(true);
    expect(exit.signal).toBe('SIGKILL');
    expect(await waitGone(m)).toEqual([]);
    // The supervising launcher ended the run itself, so it still removed the placeholders.
    for (const f of ['.bashrc', '.git', '.husky']) expect(existsSync(join(ws, f)), f).toBe(false);
  });

  it('kill() and an abort signal end the tree', async () => {
    const m = marker();
    const p = await sb.spawn(['/bin/sh', '-c', `sleep ${m} & sleep ${m}`]);
    await new Promise((r) => setTimeout(r, 150));
    expect(hostPidsWith(m).length).toBeGreaterThan(0);
    p.kill();
    const exit = await p.exit;
    expect(exit.timedOut).toBe(false);
    expect(await waitGone(m)).toEqual([]);

    const ac = new AbortController();
    const m2 = marker();
    const q = await sb.spawn(['/bin/sh', '-c', `sleep ${m2} & sleep ${m2}`], { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await q.exit;
    expect(await waitGone(m2)).toEqual([]);
  });

  it('truncates output at the cap and reports it', async () => {
    const r = await runIn(sb, ['/bin/sh', '-c', 'head -c 200000 /dev/zero; echo done >&2'], { maxOutputBytes: 1000 });
    expect(r.stdout.length).toBe(1000);
    expect(r.stderr).toBe('done\n');
    expect(r.exit.truncated).toBe(true);
    expect(r.exit.truncatedStreams).toEqual({ stdout: true, stderr: false });
    expect(r.exit.code).toBe(0);
  });

  it('passes stdin and returns the exit code', async () => {
    const r = await runIn(sb, ['/bin/sh', '-c', 'cat; exit 7'], { stdin: 'from-stdin' });
    expect(r.stdout).toBe('from-stdin');
    expect(r.exit.code).toBe(7);
  });

  // Runs start through the launcher's spawn server (which holds their lifelines), or with this
  // process's own spawn (which holds them itself): a dead parent ends its runs either way.
  for (const [how, options] of [
    ['spawn server', '{}'],
    ['spawnServer: false', '{ spawnServer: false }'],
  ] as const) {
    it(`killing the parent process ends the sandboxed child (${how})`, async () => {
      const m = marker();
      const script = parentScript(
        ws,
        'parent.mjs',
        m,
        `process.stdout.write('spawned ' + p.pid + '\\n'); setInterval(() => {}, 1000);`,
        options,
      );
      const parent = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((res) => parent.stdout.once('data', () => res()));
      for (let i = 0; i < 50 && hostPidsWith(m).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(hostPidsWith(m).length).toBeGreaterThan(0);
      parent.kill('SIGKILL');
      expect(await waitGone(m)).toEqual([]);
    });

    it(`a parent that dies while bwrap is still setting up leaves nothing behind (${how})`, async () => {
      const m = marker();
      // SIGKILL right after spawn() returns: bwrap's own --die-with-parent is not armed yet.
      const script = parentScript(ws, 'early-parent.mjs', m, `process.kill(process.pid, 'SIGKILL');`, options);
      const parent = spawn(process.execPath, [script], { stdio: ['ignore', 'ignore', 'inherit'] });
      const [, signal] = await new Promise<[number | null, string | null]>((res) =>
        parent.once('exit', (c, sig) => res([c, sig])),
      );
      expect(signal).toBe('SIGKILL');
      expect(await waitGone(m)).toEqual([]);
    });
  }

  it('sends long option lists through --args: granted values never show in the host process list', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `BULK_VAR_${i}`);
    const source = Object.fromEntries(names.map((n) => [n, `${n}-${'v'.repeat(1000)}`]));
    const bulk = await createSandbox(
      { v: 1, capabilities: ['stdout', ...names.map((n) => `env:${n}`)] },
      { env: source },
    );
    try {
      const p = await bulk.spawn(['/bin/sh', '-c', 'sleep 1; env | grep -c ^BULK_VAR_']);
      // The spawned pid is the launcher, which stays as the run's supervisor and forks bwrap:
      // sample both command lines until bwrap runs; no sample may carry a granted value.
      const samples: string[] = [];
      const bwrapLine = (): string | undefined => {
        return childrenOf(p.pid)
          .map((k) => readFileSync(`/proc/${k}/cmdline`, 'utf8'))
          .find((c) => c.startsWith('/usr/bin/bwrap\0'));
      };
      let bwrap: string | undefined;
      for (let i = 0; i < 200 && bwrap === undefined; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 5));
        samples.push(readFileSync(`/proc/${p.pid}/cmdline`, 'utf8'));
        bwrap = bwrapLine();
      }
      expect(bwrap?.split('\0').slice(0, 3)).toEqual(['/usr/bin/bwrap', '--args', '3']);
      for (const s of [...samples, bwrap ?? '']) expect(s).not.toContain('vvvvvvvvvv');
      const [out, exit] = await Promise.all([readAll(p.stdout), p.exit]);
      expect(out.trim()).toBe('200');
      expect(exit.code).toBe(0);
    } finally {
      await bulk.close();
    }
  });

  it('applies rlimits through the launcher', async () => {
    const limited = await createSandbox({
      v: 1,
      capabilities: ['stdout', 'stderr'],
      limits: { files: 64, fileSizeBytes: 4096, memoryBytes: 512 * 1024 * 1024 },
    });
    try {
      const r = await runIn(limited, [
        '/bin/bash',
        '-c',
        'ulimit -n; ulimit -f; ulimit -v; ulimit -c; head -c 10000 /dev/zero > /tmp/big; echo rc=$?',
      ]);
      // Memory is held by the run's memory cgroup where one is writable (no address-space cap then).
      const cgroupHoldsMemory = limited.probe.cgroups.memory !== undefined;
      const as = cgroupHoldsMemory ? 'unlimited' : String(512 * 1024);
      expect(r.stdout.split('\n').slice(0, 4)).toEqual(['64', '4', as, '0']);
      expect(r.stdout).toMatch(/rc=(1|153)/);
    } finally {
      await limited.close();
    }
  });

  it('limits processes through a pids cgroup when one is delegated, else refuses without allowDegraded', async () => {
    const probeOnly = await createSandbox({ v: 1, capabilities: ['stdout'] });
    const hasPids = Boolean(probeOnly.probe.cgroups.pids);
    await probeOnly.close();
    if (!hasPids) {
      await expect(createSandbox({ v: 1, limits: { pids: 16 } })).rejects.toHaveTrustCode('SANDBOX_DEGRADED_REFUSED');
      return;
    }
    const limited = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr'], limits: { pids: 16 } });
    try {
      // perl's fork() fails at once at the limit (bash would retry for seconds, while earlier
      // children exit and free their pids); the children outlive the loop.
      const forks =
        'my @k; for (1..40) { my $p = fork(); last unless defined $p; if (!$p) { sleep ' +
        '30; exit 0 } push @k, $p } print scalar(@k), "\\n"; kill 9, @k';
      const r = await runIn(limited, ['/usr/bin/perl', '-e', forks]);
      expect(Number(r.stdout.trim())).toBeGreaterThan(0);
      expect(Number(r.stdout.trim())).toBeLessThan(16);
    } finally {
      await limited.close();
    }
  });
});
