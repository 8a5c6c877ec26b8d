// A run leaves the host workspace exactly as it found it (real bubblewrap): no placeholder for a
// missing protected name appears in the user's tree, during a run, between runs, after 100 runs,
// or after the host process is killed with SIGKILL in the middle of one.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

/** Every entry below `dir`: relative name, mode, and contents (a hash) or link target. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, r));
      const what = st.isSymbolicLink()
        ? `-> ${readlinkSync(join(dir, r))}`
        : st.isFile()
          ? createHash('sha256')
              .update(readFileSync(join(dir, r)))
              .digest('hex')
          : '';
      out.push(`${r} ${st.mode.toString(8)} ${what}`);
      if (st.isDirectory()) walk(r);
    }
  };
  walk('');
  return out;
}

/** Every extended attribute below `dir` (overlayfs marks would show here), via the host's python3. */
const XATTRS = `import os, sys
for root, dirs, files in os.walk(sys.argv[1]):
    for p in [root] + [os.path.join(root, n) for n in dirs + files]:
        for x in os.listxattr(p, follow_symlinks=False):
            print(os.path.relpath(p, sys.argv[1]), x)`;
const xattrs = (dir: string): string => execFileSync('/usr/bin/python3', ['-c', XATTRS, dir], { encoding: 'utf8' });

/** A workspace with some of the protected names present (.git, .vscode) and the rest missing. */
function makeWorkspace(): string {
  const ws = freshDir('trust-untouched-');
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src', 'main.c'), 'int main(void) { return 0; }\n');
  writeFileSync(join(ws, 'README'), 'hello\n', { mode: 0o640 });
  mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(ws, '.git', 'config'), '[core]\n');
  mkdirSync(join(ws, '.vscode'));
  writeFileSync(join(ws, '.vscode', 'settings.json'), '{}\n');
  return ws;
}

// Reads and tries to write protected names (refused), writes nothing else.
const PROBE = (ws: string): string =>
  `cat ${ws}/.bashrc ${ws}/.mcp.json >/dev/null 2>&1; echo x > ${ws}/.bashrc ` +
  `2>/dev/null; mkdir ${ws}/.claude/x 2>/dev/null; ls -a ${ws} >/dev/null; true`;

describe('the host workspace after runs (bubblewrap)', () => {
  it(
    'is identical (names, modes, contents) during and after 100 ' + 'runs, with the default placeholderLingerMs',
    async () => {
      const ws = makeWorkspace();
      const before = snapshot(ws);
      const sb = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'] },
        { env: { PATH: '/usr/bin:/bin' } },
      );
      try {
        // During a run: the protected names exist inside, not on the host.
        const during = await runIn(sb, [
          '/bin/sh',
          '-c',
          `ls -a ${ws} | grep -c -x -e .bashrc -e .mcp.json -e .claude; cat ${ws}/README`,
        ]);
        expect(during.stdout).toBe('3\nhello\n');
        for (let i = 0; i < 100; i++) {
          const r = await runIn(sb, ['/bin/sh', '-c', PROBE(ws)]);
          expect(r.exit.code).toBe(0);
          if (i % 25 === 0) expect(snapshot(ws), `after run ${i + 1}`).toEqual(before);
        }
        expect(snapshot(ws)).toEqual(before);
      } finally {
        await sb.close();
      }
      expect(snapshot(ws)).toEqual(before);
      expect(xattrs(ws)).toBe('');
      rmSync(ws, { recursive: true, force: true });
    },
  );

  it(
    'keeps no overlay xattr on what a run wrote (a directory ' +
      'renamed into the root is marked opaque by the overlay)',
    async () => {
      const ws = makeWorkspace();
      const sb = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'] },
        { env: { PATH: '/usr/bin:/bin' } },
      );
      try {
        const r = await runIn(sb, [
          '/bin/sh',
          '-c',
          `cd ${ws} && mkdir made && mkdir tomove && mv tomove moved && mv src src2 && echo a > f && mv f g`,
        ]);
        expect(r.exit.code, r.stderr).toBe(0);
      } finally {
        await sb.close();
      }
      expect(xattrs(ws)).toBe('');
      expect(readdirSync(ws).sort()).toEqual(['.git', '.vscode', 'README', 'g', 'made', 'moved', 'src2']);
      rmSync(ws, { recursive: true, force: true });
    },
  );

  it('on another filesystem than the work directory, the overlay works from the per-user cache there', async () => {
    // /dev/shm is a tmpfs; the sandbox's work directory is under the temp directory.
    const ws = realpathSync(mkdtempSync('/dev/shm/trust-untouched-'));
    const cache = realpathSync(mkdtempSync('/dev/shm/trust-untouched-cache-'));
    writeFileSync(join(ws, 'README'), 'hello\n');
    const before = snapshot(ws);
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache;
    let sb: Sandbox | undefined;
    try {
      sb = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'] },
        { env: { PATH: '/usr/bin:/bin' } },
      );
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    }
    try {
      const r = await runIn(sb, [
        '/bin/sh',
        '-c',
        `ls -a ${ws} | grep -c -x -e .bashrc -e .mcp.json; echo x > ${ws}/.bashrc || echo refused`,
      ]);
      expect(r.stdout).toBe('2\nrefused\n');
      expect(snapshot(ws)).toEqual(before);
    } finally {
      await sb.close();
    }
    expect(snapshot(ws)).toEqual(before);
    expect(readdirSync(join(cache, 'trust', 'overlay-work'))).toEqual([]); // the run's work directory is gone too
    rmSync(ws, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  it('is identical after the host process is killed with SIGKILL in the middle of a run', async () => {
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    expect(existsSync(dist), 'build @trust/os-sandbox first (dist/index.js)').toBe(true);
    const ws = makeWorkspace();
    const before = snapshot(ws);
    const scriptDir = freshDir('trust-untouched-script-');
    const script = join(scriptDir, 'host.mjs');
    writeFileSync(
      script,
      `import { createSandbox } from ${JSON.stringify(dist)};
      const sb = await createSandbox(
        { v: 1, capabilities: [${JSON.stringify(`fs:rw:${ws}`)}, 'stdout'] },
        { env: { PATH: '/usr/bin:/bin' } },
      );
      await (await sb.spawn(['/bin/true'])).exit;
      const p = await sb.spawn(['/bin/sh', '-c', 'echo running; exec sleep 60']);
      p.stdout.on('data', (d) => process.stdout.write(d));`,
    );
    const host = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((ok, fail) => {
        host.stdout.on('data', (d: Buffer) => d.toString().includes('running') && ok());
        host.once('exit', () => fail(new Error('the host process ended before its run started')));
      });
      // Mid-run: nothing in the user's tree.
      expect(snapshot(ws)).toEqual(before);
      host.kill('SIGKILL');
      await new Promise((ok) => host.once('exit', ok));
      // The run's launcher ends the sandbox once the host is gone; nothing was left to remove.
      await new Promise((ok) => setTimeout(ok, 500));
      expect(snapshot(ws)).toEqual(before);
      expect(xattrs(ws)).toBe('');
    } finally {
      host.kill('SIGKILL');
      rmSync(ws, { recursive: true, force: true });
      rmSync(scriptDir, { recursive: true, force: true });
    }
  });
});
