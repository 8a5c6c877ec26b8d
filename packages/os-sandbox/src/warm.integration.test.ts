// Namespaces the spawn server makes ahead of a run (the launcher's warm.c), with real bubblewrap:
// each set serves exactly one run, no process is left holding it, and a change of the host's
// mount table, or a staged file replaced since, discards a set made before.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher } from './launcher.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { startSpawnServer } from './spawn-server.js';
import { childrenOf, freshDir, parentOf, runIn } from './test-helpers.js';

/** The namespaces the process `pid` holds open as descriptors, e.g. ["net:[4026532301]", ...]. */
function namespacesHeldBy(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`)
    .map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((l) => /^(user|mnt|net):\[\d+\]$/.test(l))
    .sort();
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** Runs readlink /proc/self/ns/net in the sandbox; returns the server's pid and the run's namespace. */
async function netnsOfRun(sb: Sandbox): Promise<{ server: number; netns: string }> {
  const p = await sb.spawn(['/usr/bin/readlink', '/proc/self/ns/net']);
  const server = parentOf(p.pid);
  let out = '';
  p.stdout.on('data', (c: Buffer) => (out += c.toString()));
  expect((await p.exit).code).toBe(0);
  return { server, netns: out.trim() };
}

describe('warm namespaces of the spawn server', () => {
  let sb: Sandbox;
  let dir: string;
  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    dir = freshDir('trust-warm-');
    sb = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr', `fs:rw:${dir}`] });
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a run joins the set made for it; the server then holds a new one, and no process holds any', async () => {
    const { server } = await netnsOfRun(sb);
    expect(sb.probe.launcherNetns).toBe(true);
    await until('the server holds a set of three namespaces', () => namespacesHeldBy(server).length === 3);
    const held = namespacesHeldBy(server);
    expect(held.map((l) => l.split(':')[0])).toEqual(['mnt', 'net', 'user']);
    // Descriptors only: the process that made them is gone.
    await until('the holder has exited', () => childrenOf(server).length === 0);
    const heldNet = held.find((l) => l.startsWith('net:'))!;
    const second = await netnsOfRun(sb);
    expect(second.server).toBe(server);
    expect(second.netns).toBe(heldNet);
    // Used once: the next run gets a namespace of its own.
    await until('the server holds a fresh set', () => namespacesHeldBy(server).length === 3 && !namespacesHeldBy(server).includes(heldNet));
    const third = await netnsOfRun(sb);
    expect(third.netns).not.toBe(heldNet);
    expect(third.netns).toMatch(/^net:\[\d+\]$/);
    // And it is never the host's.
    expect(third.netns).not.toBe(readlinkSync('/proc/self/ns/net'));
  });

  it('the server holds a run\'s mount namespace until the run has ended, then lets it go', async () => {
    await netnsOfRun(sb);
    const p = await sb.spawn(['/bin/sh', '-c', 'echo ready; exec sleep 30']);
    await new Promise((ok) => p.stdout.once('data', ok));
    const server = parentOf(p.pid);
    // The run's own mount namespace is the one bwrap started in (the launcher's private one).
    const bwrap = childrenOf(p.pid).find((c) => readlinkSync(`/proc/${c}/exe`) === '/usr/bin/bwrap')!;
    const runMnt = readlinkSync(`/proc/${bwrap}/ns/mnt`);
    expect(runMnt).not.toBe(readlinkSync('/proc/self/ns/mnt'));
    expect(namespacesHeldBy(server)).toContain(runMnt);
    p.kill();
    await p.exit;
    await until('the server has let it go', () => !namespacesHeldBy(server).includes(runMnt));
  });

  it('a run in a warm namespace still has loopback up and nothing else', async () => {
    await netnsOfRun(sb);
    const r = await runIn(sb, ['/bin/cat', '/proc/net/dev']);
    const interfaces = r.stdout.split('\n').slice(2).filter(Boolean).map((l) => l.trim().split(':')[0]);
    expect(interfaces).toEqual(['lo']);
    // Up: the kernel has made loopback's local routes, which it does only for an interface that is up.
    const routes = await runIn(sb, ['/bin/cat', '/proc/net/fib_trie']);
    expect(routes.stdout).toMatch(/127\.0\.0\.1\n\s+\/32 host LOCAL/);
  });

  it('a set staged ahead is dropped when a staged file is replaced: the next run shows the new file', async () => {
    // The spawn server on its own, with a staged file of the test's: /etc/conf in the sandbox.
    const launcher = await ensureLauncher();
    const base = freshDir('trust-warm-stage-');
    const etc = join(base, 'etc');
    const stage = join(base, 'etc.stage');
    mkdirSync(etc);
    mkdirSync(stage);
    writeFileSync(join(etc, 'conf'), 'one\n');
    const servers = (): number[] => childrenOf(process.pid).filter((c) => readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0').includes('--serve'));
    const before = servers();
    const server = startSpawnServer(launcher.path);
    const pid = servers().find((c) => !before.includes(c))!;
    const bwrapOptions = ['--unshare-all', '--die-with-parent', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--ro-bind', stage, '/etc', '--proc', '/proc', '--dev', '/dev'];
    const cat = async (): Promise<string> => {
      const run = await server.launch({
        args: ['--lifeline', '5', '--stage', stage, '--stage-file', join(etc, 'conf'), '--', '/usr/bin/bwrap', '--args', '3', '--', '/bin/cat', '/etc/conf'],
        fd3: Buffer.from(bwrapOptions.map((o) => `${o}\0`).join('')),
        stdin: false,
        stdout: true,
        stderr: false,
      });
      let out = '';
      run.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      expect((await run.closed).code).toBe(0);
      return out;
    };
    try {
      // The first run names the staging; the set made after it is staged ahead and used.
      expect(await cat()).toBe('one\n');
      await until('the server holds a set', () => namespacesHeldBy(pid).length === 3);
      const staged = namespacesHeldBy(pid);
      expect(await cat()).toBe('one\n');
      // Replaced (not rewritten in place) while a set staged with the old file is held.
      await until('the server holds a set staged after the last run', () => namespacesHeldBy(pid).length === 3 && namespacesHeldBy(pid).every((l) => !staged.includes(l)));
      writeFileSync(join(etc, 'conf.new'), 'two\n');
      renameSync(join(etc, 'conf.new'), join(etc, 'conf'));
      expect(await cat()).toBe('two\n');
    } finally {
      server.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  // mount(8) on the host needs root, which CI has; the server's mount namespace is the host's.
  it.skipIf(process.getuid?.() !== 0)('a mount made on the host after a set was made is seen by the next run (the set is made again)', async () => {
    const mnt = freshDir('trust-warm-mnt-');
    writeFileSync(join(mnt, 'where'), 'under\n');
    const ro = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr', `fs:ro:${mnt}`] });
    let mounted = false;
    try {
      const first = await ro.spawn(['/bin/cat', join(mnt, 'where')]);
      const server = parentOf(first.pid);
      expect((await first.exit).code).toBe(0);
      await until('the server holds a set', () => namespacesHeldBy(server).length === 3);
      const stale = namespacesHeldBy(server);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt]);
      mounted = true;
      writeFileSync(join(mnt, 'where'), 'over\n');
      const r = await runIn(ro, ['/bin/cat', join(mnt, 'where')]);
      expect(r.stdout).toBe('over\n');
      // The set made before the mount was dropped, not used.
      await until('the server holds a set again', () => namespacesHeldBy(server).length === 3);
      expect(namespacesHeldBy(server).filter((l) => stale.includes(l))).toEqual([]);
    } finally {
      await ro.close();
      if (mounted) execFileSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });
});
