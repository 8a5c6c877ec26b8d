// Where the launcher is built and why no run can change what the host runs next: the per-user
// cache (0700, owned by this user), a read-only package, and a run granted fs:rw over the cache.
// Real bubblewrap and the system C compiler; fails (never skips) without them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher, launcherCacheDir } from './launcher.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

// Each test compiles the launcher at least once (seconds on a loaded machine): hang guards, not limits.
describe('the launcher cache', { timeout: 180_000 }, () => {
  let dir: string;
  beforeAll(() => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    dir = freshDir('trust-launcher-cache-');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is per user: TRUST_CACHE_DIR, else XDG_CACHE_HOME/trust, else ~/.cache/trust', () => {
    expect(launcherCacheDir({ TRUST_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/c/launcher');
    expect(launcherCacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/x/trust/launcher');
    expect(launcherCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' })).toBe('/h/.cache/trust/launcher');
  });

  it('a run granted fs:rw over a directory holding the cache cannot change what the next sandbox runs', async () => {
    const ws = join(dir, 'ws');
    const cacheDir = join(ws, 'cache', 'launcher');
    mkdirSync(ws);
    const before = await ensureLauncher({ cacheDir });
    const policy = { v: 1 as const, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'] };
    const sb = await createSandbox(policy, { launcherCacheDir: cacheDir });
    // Replace every launcher binary (unlinked first: the running server's is busy) with a script
    // that leaves a mark, and every recorded hash (whatever file holds one) with the script's.
    const evil = [
      `for b in $(find ${ws}/cache -name trust-sandbox-launcher); do rm -f "$b"; printf '#!/bin/sh\\necho ` +
        `ran > ${ws}/pwned\\n' > "$b"; chmod 755 "$b"; h=$(sha256sum "$b" | cut -d" " -f1); done`,
      `for f in $(find ${ws}/cache -name '*.sha256'); do echo "$h" > "$f"; done`,
      `for f in $(find ${ws}/cache -name '*.json'); do echo "{\\"v\\":1,\\"sha256\\":\\"$h\\"}" > "$f"; done`,
      `ls ${ws}/cache/launcher | wc -l`,
    ].join('; ');
    let r: Awaited<ReturnType<typeof runIn>>;
    try {
      r = await runIn(sb, ['/bin/sh', '-c', evil]);
    } finally {
      await sb.close();
    }
    let next: Sandbox | undefined;
    let ok = '';
    try {
      next = await createSandbox(policy, { launcherCacheDir: cacheDir });
      ok = (await runIn(next, ['/bin/echo', 'ok'])).stdout;
    } catch {
      /* judged below: what ran is what matters */
    } finally {
      await next?.close();
    }
    // The planted script never ran on the host, the cache holds the binary built before, and the
    // next sandbox works with it.
    expect(existsSync(join(ws, 'pwned'))).toBe(false);
    expect((await ensureLauncher({ cacheDir })).sha256).toBe(before.sha256);
    expect(ok).toBe('ok\n');
    // Because the run saw the cache as an empty read-only directory.
    expect(r.stdout.trim()).toBe('0');
  });

  it(
    'with launcherVerify: "rebuild", binary and recorded hash both ' +
      'replaced (by anything) are rebuilt from source, never run',
    async () => {
      const cacheDir = join(dir, 'rebuild', 'launcher');
      const good = await ensureLauncher({ cacheDir });
      const marker = join(dir, 'rebuild-ran');
      const planted = `#!/bin/sh\necho ran > ${marker}\n`;
      rmSync(good.path);
      writeFileSync(good.path, planted, { mode: 0o700 });
      const manifest = `${dirname(good.path)}.json`;
      const hash = createHash('sha256').update(planted).digest('hex');
      writeFileSync(manifest, JSON.stringify({ v: 1, sha256: hash }));
      let sb: Sandbox | undefined;
      try {
        sb = await createSandbox(
          { v: 1, capabilities: ['stdout'] },
          { launcherCacheDir: cacheDir, launcherVerify: 'rebuild' },
        );
        expect((await runIn(sb, ['/bin/echo', 'ok'])).stdout).toBe('ok\n');
      } finally {
        await sb?.close();
      }
      expect(existsSync(marker)).toBe(false);
      expect(createHash('sha256').update(readFileSync(good.path)).digest('hex')).toBe(good.sha256);
      expect(JSON.parse(readFileSync(manifest, 'utf8'))).toMatchObject({ sha256: good.sha256 });
    },
  );

  it('refuses a writable grant inside the cache', async () => {
    const cacheDir = join(dir, 'inside', 'launcher');
    await ensureLauncher({ cacheDir });
    await expect(
      createSandbox({ v: 1, capabilities: [`fs:rw:${cacheDir}`] }, { launcherCacheDir: cacheDir }),
    ).rejects.toHaveTrustCode('SANDBOX_POLICY_INVALID');
  });

  it(
    'creates the cache 0700, tightens a loose one of this user, ' + 'and refuses one of another user or a symlink',
    async () => {
      const fresh = join(dir, 'fresh', 'launcher');
      const l = await ensureLauncher({ cacheDir: fresh });
      expect(statSync(fresh).mode & 0o777).toBe(0o700);
      expect(statSync(dirname(l.path)).mode & 0o777).toBe(0o700);
      chmodSync(fresh, 0o777);
      await ensureLauncher({ cacheDir: fresh });
      expect(statSync(fresh).mode & 0o777).toBe(0o700);
      const foreign = join(dir, 'foreign');
      mkdirSync(foreign, { mode: 0o700 });
      chownSync(foreign, 65534, 65534);
      await expect(ensureLauncher({ cacheDir: foreign })).rejects.toHaveTrustCode('SANDBOX_LAUNCHER_CACHE_UNSAFE');
      const link = join(dir, 'link');
      symlinkSync(fresh, link);
      await expect(ensureLauncher({ cacheDir: link })).rejects.toHaveTrustCode('SANDBOX_LAUNCHER_CACHE_UNSAFE');
    },
  );

  it('works from a read-only package: nothing is written into it', () => {
    const pkg = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
    const dist = join(pkg, 'dist', 'index.js');
    expect(existsSync(dist), 'build @trust/os-sandbox first (dist/index.js)').toBe(true);
    const xdg = join(dir, 'xdg');
    const script = join(dir, 'ro.mjs');
    writeFileSync(
      script,
      `const { ensureLauncher } = await ` +
        `import(${JSON.stringify(dist)});\nprocess.stdout.write(JSON.stringify(await ` +
        `ensureLauncher()));\n`,
    );
    // The package is a read-only bind in this namespace (as root, chmod alone would not stop a write).
    const out = execFileSync(
      '/usr/bin/bwrap',
      ['--bind', '/', '/', '--ro-bind', pkg, pkg, '--dev', '/dev', '--proc', '/proc', '--', process.execPath, script],
      { env: { PATH: '/usr/bin:/bin', HOME: dir, XDG_CACHE_HOME: xdg }, encoding: 'utf8' },
    );
    const l = JSON.parse(out) as { path: string; sha256: string };
    expect(l.path.startsWith(join(xdg, 'trust', 'launcher') + '/')).toBe(true);
    expect(readFileSync(l.path).length).toBeGreaterThan(0);
    expect(existsSync(join(pkg, '.native'))).toBe(false);
  });
});
