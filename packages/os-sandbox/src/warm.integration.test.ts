// Namespaces the spawn server makes ahead of a run (the launcher's warm.c), with real bubblewrap:
// each set serves exactly one run, no process is left holding it, and a change of the host's
// mount table, or a staged file replaced since, discards a set made before.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher } from './launcher.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { startSpawnServer } from './spawn-server.js';
import { alive, childrenOf, descendants, freshDir, named, runIn, serverOf, until } from './test-helpers.js';

/** The namespaces the process `pid` holds open as descriptors, e.g. ["net:[4026532301]", ...]. */
function namespacesHeldBy(pid: number): string[] {
  return namespaceFdsOf(pid)
    .map(([, link]) => link)
    .sort();
}

function namespaceFdsOf(pid: number): [string, string][] {
  return readdirSync(`/proc/${pid}/fd`)
    .map((fd): [string, string] => {
      try {
        return [`/proc/${pid}/fd/${fd}`, readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return ['', ''];
      }
    })
    .filter(([, l]) => /^(user|mnt|net):\[\d+\]$/.test(l));
}

/** Whether `pid` holds exactly one set (a user, a mount and a network namespace) and nothing more. */
function holdsJustASet(pid: number): boolean {
  return (
    namespacesHeldBy(pid)
      .map((l) => l.split(':')[0])
      .join() === 'mnt,net,user'
  );
}

/**
 * Keeps the namespaces at `paths` alive until the returned function is called. A namespace's
 * number is reused as soon as it is freed, so comparing numbers is only sound while both are held.
 */
function keepAlive(paths: string[]): () => void {
  const fds = paths.map((p) => openSync(p, 'r'));
  return () => {
    for (const fd of fds) closeSync(fd);
  };
}

/** The server's helper that closes the namespaces it is done with (named so in /proc/<pid>/comm). */
function discarderOf(server: number): number | undefined {
  return named(childrenOf(server), 'trust-discard')[0];
}

/** Runs readlink /proc/self/ns/net in the sandbox; returns the run's network namespace. */
async function netnsOfRun(sb: Sandbox): Promise<string> {
  const r = await runIn(sb, ['/usr/bin/readlink', '/proc/self/ns/net']);
  expect(r.exit.code).toBe(0);
  return r.stdout.trim();
}

/**
 * A host process for the mount test: runs `cat <mnt>/where` in a sandbox, waits until the spawn
 * server holds a set (kept alive, so that its numbers stay its own), mounts a tmpfs with another
 * `where` on <mnt>, runs the same command again, and prints both outputs and the sets held.
 */
function mountHost(dist: string, mnt: string): string {
  return `
import { createSandbox } from ${JSON.stringify(dist)};
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
const mnt = ${JSON.stringify(mnt)};
const held = (pid) => readdirSync('/proc/' + pid + '/fd').map((fd) => {
  try { return ['/proc/' + pid + '/fd/' + fd, readlinkSync('/proc/' + pid + '/fd/' + fd)]; } catch { return ['', '']; }
}).filter(([, l]) => /^(user|mnt|net):/.test(l));
const justASet = (pid) => held(pid).map(([, l]) => l.split(':')[0]).sort().join() === 'mnt,net,user';
const until = async (ok) => { for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10)); };
const sb = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr', 'fs:ro:' + mnt] }, { prestart: false });
const cat = async () => {
  const p = await sb.spawn(['/bin/cat', mnt + '/where']);
  let out = '';
  p.stdout.on('data', (c) => (out += c));
  await p.exit;
  return out;
};
const before = await cat();
const server = Number(readFileSync('/proc/self/task/' + process.pid + '/children', 'utf8').trim().split(/\\s+/)
  .find((c) => readFileSync('/proc/' + c + '/cmdline', 'utf8').split('\\0').includes('--serve')));
await until(() => justASet(server));
const pinned = held(server).map(([path]) => openSync(path, 'r'));
const stale = held(server).map(([, l]) => l);
execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt]);
writeFileSync(mnt + '/where', 'over\\n');
const after = await cat();
await until(() => justASet(server));
const now = held(server).map(([, l]) => l);
pinned.forEach((fd) => closeSync(fd));
await sb.close();
process.stdout.write(JSON.stringify({ before, after, stale, now }));
`;
}

describe('warm namespaces of the spawn server', () => {
  let sb: Sandbox;
  let dir: string;
  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    dir = freshDir('trust-warm-');
    // Sets on their own: no run prepared ahead (that one would hold a set; see prestart.integration.test.ts).
    sb = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr', `fs:rw:${dir}`] }, { prestart: false });
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a run joins the set made for it; the server then holds a new one, and no process holds any', async () => {
    const server = await serverOf(sb);
    expect(sb.probe.launcherNetns).toBe(true);
    await until('the server holds a set of three namespaces', () => holdsJustASet(server));
    const release = keepAlive(namespaceFdsOf(server).map(([path]) => path));
    try {
      const heldNet = namespacesHeldBy(server).find((l) => l.startsWith('net:'))!;
      // Descriptors only: the process that made them is gone.
      const discarder = discarderOf(server);
      await until('the holder has exited', () => childrenOf(server).every((c) => c === discarder));
      expect(await netnsOfRun(sb)).toBe(heldNet);
      expect(await serverOf(sb)).toBe(server);
      // Used once: the next run gets a namespace of its own.
      await until(
        'the server holds a fresh set',
        () => holdsJustASet(server) && !namespacesHeldBy(server).includes(heldNet),
      );
      const third = await netnsOfRun(sb);
      expect(third).not.toBe(heldNet);
      expect(third).toMatch(/^net:\[\d+\]$/);
      // And it is never the host's.
      expect(third).not.toBe(readlinkSync('/proc/self/ns/net'));
    } finally {
      release();
    }
  });

  it("the server holds a run's mount namespace until the run has ended, then lets it go", async () => {
    const server = await serverOf(sb);
    await until('the server holds a set', () => holdsJustASet(server));
    const p = await sb.spawn(['/bin/sh', '-c', 'echo ready; exec sleep 30']);
    await new Promise((ok) => p.stdout.once('data', ok));
    // The run's own mount namespace is the one bwrap started in (the launcher's private one).
    const bwrap = childrenOf(p.pid).find((c) => readlinkSync(`/proc/${c}/exe`) === '/usr/bin/bwrap')!;
    const runMnt = readlinkSync(`/proc/${bwrap}/ns/mnt`);
    const release = keepAlive([`/proc/${bwrap}/ns/mnt`]);
    try {
      expect(runMnt).not.toBe(readlinkSync('/proc/self/ns/mnt'));
      expect(namespacesHeldBy(server)).toContain(runMnt);
      p.kill();
      await p.exit;
      await until('the server has let it go', () => !namespacesHeldBy(server).includes(runMnt));
      // Closed by the server's discarder (whoever closes it last waits for its teardown), which
      // keeps nothing either.
      const discarder = discarderOf(server);
      expect(discarder).toBeDefined();
      await until('the discarder has closed it', () => namespacesHeldBy(discarder!).length === 0);
    } finally {
      release();
    }
  });

  it("without its discarder the server closes a run's namespaces itself, and runs go on", async () => {
    const own = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr'] }, { prestart: false });
    try {
      const server = await serverOf(own);
      const discarder = discarderOf(server)!;
      process.kill(discarder, 'SIGKILL');
      await until('the discarder is gone', () => !alive(discarder));
      for (let i = 0; i < 3; i++) {
        const r = await runIn(own, ['/bin/echo', 'still']);
        expect(r.stdout).toBe('still\n');
      }
      // Only the next set (and no run's mount namespace) is held once the runs are over.
      await until('the server holds just the next set', () => holdsJustASet(server));
    } finally {
      await own.close();
    }
  });

  it('a run in a warm namespace still has loopback up and nothing else', async () => {
    await netnsOfRun(sb);
    const r = await runIn(sb, ['/bin/cat', '/proc/net/dev']);
    const interfaces = r.stdout
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((l) => l.trim().split(':')[0]);
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
    const servers = (): number[] =>
      childrenOf(process.pid).filter((c) => readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0').includes('--serve'));
    const before = servers();
    const server = startSpawnServer(launcher.path);
    const pid = servers().find((c) => !before.includes(c))!;
    const bwrapOptions = [
      '--unshare-all',
      '--die-with-parent',
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/bin',
      '/bin',
      '--symlink',
      'usr/lib',
      '/lib',
      '--symlink',
      'usr/lib64',
      '/lib64',
      '--ro-bind',
      stage,
      '/etc',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
    ];
    const cat = async (): Promise<string> => {
      const run = await server.launch({
        args: [
          '--lifeline',
          '5',
          '--stage',
          stage,
          '--stage-file',
          join(etc, 'conf'),
          '--',
          '/usr/bin/bwrap',
          '--args',
          '3',
          '--',
          '/bin/cat',
          '/etc/conf',
        ],
        options: bwrapOptions,
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
      await until('the server holds a set', () => holdsJustASet(pid));
      const release = keepAlive(namespaceFdsOf(pid).map(([path]) => path));
      const staged = namespacesHeldBy(pid);
      expect(await cat()).toBe('one\n');
      // Replaced (not rewritten in place) while a set staged with the old file is held.
      await until(
        'the server holds a set staged after the last run',
        () => holdsJustASet(pid) && namespacesHeldBy(pid).every((l) => !staged.includes(l)),
      );
      release();
      writeFileSync(join(etc, 'conf.new'), 'two\n');
      renameSync(join(etc, 'conf.new'), join(etc, 'conf'));
      expect(await cat()).toBe('two\n');
    } finally {
      server.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('closing the sandbox ends its server and whatever the server had started; nothing is left', async () => {
    const own = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr'] }, { prestart: false });
    const server = await serverOf(own);
    await until('the server holds a set', () => holdsJustASet(server));
    // A run under way and the next set in the making when the sandbox closes.
    const p = await own.spawn(['/bin/sh', '-c', 'echo ready; exec sleep 30']);
    await new Promise((ok) => p.stdout.once('data', ok));
    const below = [server, ...descendants(server)];
    expect(below.length).toBeGreaterThan(3);
    await own.close();
    await until('every process of the server is gone', () => !below.some(alive));
  });

  it('a mount made after a set was made is seen by the next run (the set is made again)', async () => {
    // The host process runs in a mount namespace of its own (unshare, in a user namespace where it
    // may mount, so no root is needed); its spawn server shares that namespace.
    const dist = new URL('../dist/index.js', import.meta.url).pathname;
    expect(existsSync(dist), 'build @trust/os-sandbox first (dist/index.js)').toBe(true);
    const mnt = freshDir('trust-warm-mnt-');
    writeFileSync(join(mnt, 'where'), 'under\n');
    const script = join(dir, 'mount-host.mjs');
    writeFileSync(script, mountHost(dist, mnt));
    try {
      const r = spawnSync('unshare', ['--user', '--map-root-user', '--mount', process.execPath, script], {
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { before: string; after: string; stale: string[]; now: string[] };
      expect(out.before).toBe('under\n');
      expect(out.after).toBe('over\n');
      // The set made before the mount was dropped, not used.
      expect(out.stale).toHaveLength(3);
      expect(out.now.filter((l) => out.stale.includes(l))).toEqual([]);
    } finally {
      rmSync(mnt, { recursive: true, force: true });
    }
  });
});
