// Runs prepared ahead of their command (the `prestart` option), with real bubblewrap: the
// prepared run takes the command only when a run started then would be the same run, and
// nothing of it is left once it is not needed.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher } from './launcher.js';
import { probeSandbox } from './probe.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { startSpawnServer } from './spawn-server.js';
import { alive, createRecordingAudit, descendants, freshDir, runIn, serverOf, until } from './test-helpers.js';

/** The launchers waiting in a sandbox for a command (bwrap's command), below spawn server `server`. */
function awaiting(server: number): number[] {
  return descendants(server).filter((p) => {
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      return argv[0] === '/proc/self/fd/6' && argv[1] === '--await';
    } catch {
      return false;
    }
  });
}

/**
 * A host process for the mount test: runs `cat <mnt>/inner/where` three times in a sandbox, lets the
 * next run be prepared, mounts a tmpfs with another `where` on <mnt>/inner (no path the plan
 * depends on changes) and runs it again; prints the outputs and whether each spawn took a
 * prepared run.
 */
function mountHost(dist: string, mnt: string): string {
  return `
import { createSandbox } from ${JSON.stringify(dist)};
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const mnt = ${JSON.stringify(mnt)};
const prepared = [];
const audit = { record: (e) => { if (e.action === 'sandbox.spawn') prepared.push(e.details.prepared); } };
const sb = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr', 'fs:ro:' + mnt] }, { audit });
const cat = async () => {
  const p = await sb.spawn(['/bin/cat', mnt + '/inner/where']);
  let out = '';
  p.stdout.on('data', (c) => (out += c));
  await p.exit;
  await new Promise((r) => setTimeout(r, 300)); // the next run is prepared meanwhile
  return out;
};
const outs = [await cat(), await cat(), await cat()];
execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt + '/inner']);
writeFileSync(mnt + '/inner/where', 'over\\n');
outs.push(await cat());
await sb.close();
process.stdout.write(JSON.stringify({ outs, prepared }));
`;
}

describe('runs prepared ahead (prestart)', () => {
  let dir: string;
  let ws: string;
  let sb: Sandbox;
  let server: number;
  const audit = createRecordingAudit();
  /** Whether the last spawn was a prepared run's (its audit record says so). */
  const tookPrepared = (): unknown =>
    audit.events.filter((e) => e.action === 'sandbox.spawn').at(-1)?.details?.prepared;
  const ready = (): Promise<void> => until('a run is prepared', () => awaiting(server).length === 1);

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    dir = freshDir('trust-prestart-');
    ws = join(dir, 'ws');
    mkdirSync(join(ws, 'sub'), { recursive: true });
    sb = await createSandbox(
      { v: 1, capabilities: ['stdin', 'stdout', 'stderr', `fs:rw:${ws}`, 'env:GREETING'] },
      { audit, env: { PATH: '/usr/bin:/bin', GREETING: 'from-host' }, placeholderLingerMs: 60_000 },
    );
    server = await serverOf(sb);
    // Runs are prepared while they follow each other: from the second spawn on here.
    await runIn(sb, ['/bin/true']);
    expect(tookPrepared()).toBe(false);
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "takes the spawn's command, arguments, environment and working " +
      'directory; the command has only stdio and sees no launcher',
    async () => {
      for (let i = 0; i < 3; i++) {
        await ready();
        const cwd = i % 2 === 0 ? ws : join(ws, 'sub');
        const r = await runIn(
          sb,
          [
            '/bin/sh',
            '-c',
            'printf "%s|%s|%s|" "$0" "$GREETING" "$PWD"; ls /proc/self/fd | tr "\\n" " "; ls -A /sandbox',
            `arg-${i}`,
          ],
          {
            cwd,
            env: { GREETING: `hello-${i}` },
          },
        );
        expect(r.exit.code).toBe(0);
        expect(tookPrepared()).toBe(true);
        // 3 is ls's own listing of the directory.
        expect(r.stdout).toBe(`arg-${i}|hello-${i}|${cwd}|0 1 2 3 home\n`);
      }
    },
  );

  it(
    'a command that cannot be executed, or a working directory ' + 'that does not exist, fails the run with a message',
    async () => {
      await ready();
      const missing = await runIn(sb, ['/no/such/program']);
      expect(tookPrepared()).toBe(true);
      expect(missing.exit.code).toBe(127);
      expect(missing.stderr).toMatch(/cannot execute \/no\/such\/program: No such file or directory/);
      await ready();
      const gone = await runIn(sb, ['/bin/true'], { cwd: join(ws, 'not-made') });
      expect(tookPrepared()).toBe(true);
      expect(gone.exit.code).not.toBe(0);
      expect(gone.stderr).toMatch(/working directory .*not-made/);
    },
  );

  it(
    'a protected file replaced on the host since: the spawn ' + 'starts from the beginning and sees the new file',
    async () => {
      writeFileSync(join(ws, '.npmrc'), 'old\n');
      await runIn(sb, ['/bin/true']); // the next run is prepared with this .npmrc pinned
      await ready();
      writeFileSync(join(ws, '.npmrc.new'), 'new\n');
      renameSync(join(ws, '.npmrc.new'), join(ws, '.npmrc'));
      const r = await runIn(sb, ['/bin/cat', '.npmrc']);
      expect(tookPrepared()).toBe(false);
      expect(r.stdout).toBe('new\n');
      // The run prepared after that one pins the new file.
      await ready();
      const again = await runIn(sb, ['/bin/sh', '-c', 'cat .npmrc; echo x >> .npmrc']);
      expect(tookPrepared()).toBe(true);
      expect(again.stdout).toBe('new\n');
      expect(again.exit.code).not.toBe(0);
      expect(readFileSync(join(ws, '.npmrc'), 'utf8')).toBe('new\n');
    },
  );

  it(
    'a nested repository made on the host since: the spawn starts ' + 'from the beginning, and its .git is read-only',
    async () => {
      await ready();
      mkdirSync(join(ws, 'sub', 'lib', '.git', 'hooks'), { recursive: true });
      const hook = join(ws, 'sub', 'lib', '.git', 'hooks', 'pre-commit');
      const r = await runIn(sb, ['/bin/sh', '-c', `echo planted > ${hook}`]);
      expect(tookPrepared()).toBe(false);
      expect(r.exit.code).not.toBe(0);
      expect(r.stderr).toMatch(/Read-only file system/);
      expect(existsSync(hook)).toBe(false);
      // Prepared with it in place, the next run pins it too.
      await ready();
      const again = await runIn(sb, ['/bin/sh', '-c', `echo planted > ${hook}`]);
      expect(tookPrepared()).toBe(true);
      expect(again.exit.code).not.toBe(0);
      expect(existsSync(hook)).toBe(false);
    },
  );

  it('a repository moved in, or a .git made in the deepest directory walked, since: the same', async () => {
    const outside = join(dir, 'elsewhere');
    mkdirSync(join(outside, '.git', 'hooks'), { recursive: true });
    mkdirSync(join(ws, 'a', 'b', 'c'), { recursive: true });
    await runIn(sb, ['/bin/true']);
    await ready();
    renameSync(outside, join(ws, 'moved'));
    const moved = await runIn(sb, ['/bin/sh', '-c', 'echo planted > moved/.git/hooks/pre-commit']);
    expect(tookPrepared()).toBe(false);
    expect(moved.stderr).toMatch(/Read-only file system/);
    await ready();
    mkdirSync(join(ws, 'a', 'b', 'c', '.git'));
    const deep = await runIn(sb, ['/bin/sh', '-c', 'echo planted > a/b/c/.git/config']);
    expect(tookPrepared()).toBe(false);
    expect(deep.stderr).toMatch(/Read-only file system/);
    expect(existsSync(join(ws, 'moved', '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(ws, 'a', 'b', 'c', '.git', 'config'))).toBe(false);
  });

  it('a command that ends at once with no output: its empty streams still end for the reader', async () => {
    for (let i = 0; i < 10; i++) {
      await ready();
      const r = await runIn(sb, ['/bin/true']);
      expect(tookPrepared()).toBe(true);
      expect(r).toMatchObject({ stdout: '', stderr: '', exit: { code: 0 } });
    }
  });

  it('other pipes than the run was prepared with: the spawn starts from the beginning', async () => {
    await ready();
    const r = await runIn(sb, ['/bin/cat'], { stdin: 'typed\n' });
    expect(tookPrepared()).toBe(false);
    expect(r.stdout).toBe('typed\n');
  });

  it('close() ends the prepared run: nothing of the sandbox is left', async () => {
    const own = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr'] });
    const ownServer = await serverOf(own);
    await runIn(own, ['/bin/true']);
    await until('a run is prepared', () => awaiting(ownServer).length === 1);
    const below = [ownServer, ...descendants(ownServer)];
    await own.close();
    await until('every process of the sandbox is gone', () => !below.some(alive));
  });

  it('unused for placeholderLingerMs it is ended, and then the placeholders are removed', async () => {
    // Without the launcher's private namespace (accepted by name), its root keeps host placeholders.
    const fresh = realpathSync(mkdtempSync('/dev/shm/trust-prestart-linger-'));
    const probe = await probeSandbox();
    const own = await createSandbox(
      { v: 1, capabilities: ['stdout', 'stderr', `fs:rw:${fresh}`], allowDegraded: ['host-placeholders'] },
      { placeholderLingerMs: 200, probe: { ...probe, pinNamespace: false } },
    );
    try {
      const ownServer = await serverOf(own);
      await runIn(own, ['/bin/true']);
      expect(existsSync(join(fresh, '.bashrc'))).toBe(true);
      await until('a run is prepared', () => awaiting(ownServer).length === 1);
      await until('the prepared run is ended', () => awaiting(ownServer).length === 0);
      await until('the placeholders are removed', () => !existsSync(join(fresh, '.bashrc')));
    } finally {
      await own.close();
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('spawns further apart than placeholderLingerMs prepare nothing', async () => {
    const records = createRecordingAudit();
    const own = await createSandbox(
      { v: 1, capabilities: ['stdout', 'stderr'] },
      { audit: records, placeholderLingerMs: 400 },
    );
    try {
      const ownServer = await serverOf(own);
      for (let i = 0; i < 2; i++) {
        await new Promise((r) => setTimeout(r, 800));
        expect((await runIn(own, ['/bin/true'])).exit.code).toBe(0);
      }
      // Time enough for a run to be prepared (within its 400 ms): none is.
      await new Promise((r) => setTimeout(r, 150));
      expect(awaiting(ownServer)).toEqual([]);
      expect(records.events.filter((e) => e.action === 'sandbox.spawn').map((e) => e.details?.prepared)).toEqual([
        false,
        false,
        false,
      ]);
      // And once they follow each other again, the next is prepared.
      await runIn(own, ['/bin/true']);
      await until('a run is prepared', () => awaiting(ownServer).length === 1);
    } finally {
      await own.close();
    }
  });

  it('prestart: false prepares nothing: every spawn starts from the beginning', async () => {
    const records = createRecordingAudit();
    const own = await createSandbox(
      { v: 1, capabilities: ['stdout', 'stderr', `fs:rw:${ws}`] },
      { audit: records, prestart: false },
    );
    try {
      const ownServer = await serverOf(own);
      for (let i = 0; i < 3; i++) expect((await runIn(own, ['/bin/true'])).exit.code).toBe(0);
      expect(awaiting(ownServer)).toEqual([]);
      expect(records.events.filter((e) => e.action === 'sandbox.spawn').map((e) => e.details?.prepared)).toEqual([
        false,
        false,
        false,
        false,
      ]);
    } finally {
      await own.close();
    }
  });

  it('the spawn server refuses a prepared run its command once a staged file was replaced, and ends it', async () => {
    // The server on its own, with a staged file of the test's (/etc/conf in the sandbox).
    const launcher = await ensureLauncher();
    const base = freshDir('trust-prestart-stage-');
    const etc = join(base, 'etc');
    const stage = join(base, 'etc.stage');
    mkdirSync(etc);
    mkdirSync(stage);
    writeFileSync(join(etc, 'conf'), 'one\n');
    const own = startSpawnServer(launcher.path);
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
    const prepare = () =>
      own.prepare({
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
          '/proc/self/fd/6',
          '--await',
          '--',
        ],
        options: bwrapOptions,
        stdin: false,
        stdout: true,
        stderr: false,
      });
    const cat = { argv: ['/bin/cat', '/etc/conf'], env: {}, cwd: '/' };
    try {
      const first = await prepare();
      // A prepared run's pipes become streams once it has its command.
      expect(first.stdout).toBeNull();
      expect(await first.start(cat)).toBe(true);
      let out = '';
      first.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      expect((await first.closed).code).toBe(0);
      expect(out).toBe('one\n');
      const second = await prepare();
      writeFileSync(join(etc, 'conf.new'), 'two\n');
      renameSync(join(etc, 'conf.new'), join(etc, 'conf'));
      expect(await second.start(cat)).toBe(false);
      expect((await second.closed).code).not.toBe(0);
    } finally {
      own.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('a mount made on the host since: the spawn starts from the beginning and sees it', () => {
    // The host process runs in a mount namespace of its own (unshare, in a user namespace where it
    // may mount, so no root is needed); its spawn server shares that namespace.
    const dist = new URL('../dist/index.js', import.meta.url).pathname;
    expect(existsSync(dist), 'build @trust/os-sandbox first (dist/index.js)').toBe(true);
    const mnt = freshDir('trust-prestart-mnt-');
    mkdirSync(join(mnt, 'inner'));
    writeFileSync(join(mnt, 'inner', 'where'), 'under\n');
    const script = join(dir, 'mount-host.mjs');
    writeFileSync(script, mountHost(dist, mnt));
    try {
      const r = spawnSync('unshare', ['--user', '--map-root-user', '--mount', process.execPath, script], {
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { outs: string[]; prepared: boolean[] };
      expect(out.outs).toEqual(['under\n', 'under\n', 'under\n', 'over\n']);
      expect(out.prepared).toEqual([false, false, true, false]);
    } finally {
      rmSync(mnt, { recursive: true, force: true });
    }
  });
});
