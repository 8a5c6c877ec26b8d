// Nested grants and deny entries in the OS sandbox (real bubblewrap): the bind order makes the most
// specific entry win, as in the WASM host. The sandbox-runtime shape (writable roots inside a
// readable project, deny entries inside a writable root) and its reverse, with renames across the
// boundary and a symlink planted to reach a hidden path.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

async function sh(capabilities: string[], script: string, unixSockets: string[] = []) {
  const sb = await createSandbox(
    { v: 1, capabilities: [...capabilities, 'stdout', 'stderr'], unixSockets },
    { env: { PATH: '/usr/bin:/bin' } },
  );
  try {
    return await runIn(sb, ['/bin/sh', '-c', script]);
  } finally {
    await sb.close();
  }
}

/** `ok` or `refused` for one shell command, as a line. */
const tryIt = (label: string, cmd: string) =>
  `if ${cmd} 2>/dev/null; then echo "${label} ok"; else echo "${label} refused"; fi`;

describe('nested grants (bubblewrap)', () => {
  it('fs:ro:<repo> with fs:rw:<repo>/dist: the build directory is writable, the rest of the repo is not', async () => {
    const repo = freshDir('trust-nested-ro-');
    mkdirSync(join(repo, 'dist'));
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'a.ts'), 'src');
    const r = await sh(
      [`fs:ro:${repo}`, `fs:rw:${repo}/dist`],
      [
        tryIt('write dist', `echo built > ${repo}/dist/a.js`),
        tryIt('write dist via ..', `echo b2 > ${repo}/src/../dist/b.js`),
        tryIt('write src', `echo x > ${repo}/src/a.ts`),
        tryIt('create at top', `echo x > ${repo}/new`),
        tryIt('rename dist away', `mv ${repo}/dist ${repo}/dist2`),
        tryIt('move out of dist', `mv ${repo}/dist/a.js ${repo}/src/a.js`),
        `cat ${repo}/src/a.ts; echo`,
      ].join('; '),
    );
    expect(r.stdout.split('\n')).toEqual([
      'write dist ok',
      'write dist via .. ok',
      'write src refused',
      'create at top refused',
      'rename dist away refused',
      'move out of dist refused',
      'src',
      '',
    ]);
    expect(readFileSync(join(repo, 'dist', 'a.js'), 'utf8')).toBe('built\n');
    expect(readFileSync(join(repo, 'src', 'a.ts'), 'utf8')).toBe('src');
    expect(existsSync(join(repo, 'new'))).toBe(false);
  });

  it('fs:rw:/a with fs:ro:/a/b: read-only inside writable, and b cannot be renamed or replaced', async () => {
    const a = freshDir('trust-nested-rw-');
    mkdirSync(join(a, 'b'));
    writeFileSync(join(a, 'b', 'locked'), 'locked');
    const r = await sh(
      [`fs:rw:${a}`, `fs:ro:${a}/b`],
      [
        tryIt('write a', `echo x > ${a}/free`),
        tryIt('write b', `echo x > ${a}/b/locked`),
        tryIt('create in b', `echo x > ${a}/b/new`),
        tryIt('rename b', `mv ${a}/b ${a}/b2`),
        tryIt('remove b', `rm -rf ${a}/b`),
        tryIt('unlink in b', `rm -f ${a}/b/locked`),
        `cat ${a}/b/locked; echo`,
      ].join('; '),
    );
    expect(r.stdout.split('\n')).toEqual([
      'write a ok',
      'write b refused',
      'create in b refused',
      'rename b refused',
      'remove b refused',
      'unlink in b refused',
      'locked',
      '',
    ]);
    expect(readFileSync(join(a, 'b', 'locked'), 'utf8')).toBe('locked');
  });
});

describe('deny entries (bubblewrap)', () => {
  it('fs:none hides a directory and a file in a writable root, and a nested grant inside the hidden one', async () => {
    const w = freshDir('trust-deny-');
    mkdirSync(join(w, 'secrets', 'pub'), { recursive: true });
    writeFileSync(join(w, 'secrets', 'key'), 'SECRET');
    writeFileSync(join(w, 'secrets', 'pub', 'cert'), 'CERT');
    writeFileSync(join(w, '.env'), 'TOKEN=1');
    symlinkSync('secrets/key', join(w, 'via-link'));
    mkdirSync(join(w, 'x', 'deep'), { recursive: true });
    writeFileSync(join(w, 'x', 'deep', 'key'), 'SECRET');
    const r = await sh(
      [
        `fs:rw:${w}`,
        `fs:none:${w}/secrets`,
        `fs:none:${w}/.env`,
        `fs:ro:${w}/secrets/pub`,
        `fs:none:${w}/absent`,
        `fs:none:${w}/x/deep`,
      ],
      [
        `ls -A ${w}/secrets | tr '\\n' ' '; echo`,
        tryIt('read key', `cat ${w}/secrets/key`),
        tryIt('read via link', `cat ${w}/via-link`),
        tryIt('read .env', `grep -q TOKEN ${w}/.env`),
        tryIt('write .env', `echo x > ${w}/.env`),
        tryIt('write in secrets', `echo x > ${w}/secrets/k2`),
        tryIt('rename secrets', `mv ${w}/secrets ${w}/s2`),
        `cat ${w}/secrets/pub/cert; echo`,
        tryIt('write pub', `echo x > ${w}/secrets/pub/cert`),
        tryIt('write root', `echo x > ${w}/free`),
        // the directory between the root and a nested entry is pinned: no decoy for the next run
        tryIt('rename x', `mv ${w}/x ${w}/x2`),
        tryIt('write in x', `echo x > ${w}/x/mine`),
      ].join('; '),
    );
    expect(r.stdout.split('\n')).toEqual([
      'pub ',
      'read key refused',
      'read via link refused',
      'read .env refused',
      'write .env refused',
      'write in secrets refused',
      'rename secrets refused',
      'CERT',
      'write pub refused',
      'write root ok',
      'rename x refused',
      'write in x ok',
      '',
    ]);
    expect(readFileSync(join(w, 'x', 'deep', 'key'), 'utf8')).toBe('SECRET');
    expect(readFileSync(join(w, 'secrets', 'key'), 'utf8')).toBe('SECRET');
    expect(readFileSync(join(w, '.env'), 'utf8')).toBe('TOKEN=1');
  });
});

describe('nested entries under the overlays a unix-socket policy uses (bubblewrap)', () => {
  it('a deny entry and a writable root inside a read-only grant hold when read-only roots are overlaid', async () => {
    const repo = freshDir('trust-nested-sock-');
    mkdirSync(join(repo, 'dist'));
    writeFileSync(join(repo, '.env'), 'TOKEN=1');
    writeFileSync(join(repo, 'src.txt'), 'src');
    const sock = join(freshDir('trust-nested-sockdir-'), 's.sock');
    const server = createServer((c) => c.end('hi')).listen(sock);
    await new Promise((ok) => server.once('listening', ok));
    try {
      const r = await sh(
        [`fs:ro:${repo}`, `fs:rw:${repo}/dist`, `fs:none:${repo}/.env`],
        [
          tryIt('read .env', `grep -q TOKEN ${repo}/.env`),
          tryIt('write dist', `echo built > ${repo}/dist/a.js`),
          tryIt('write src', `echo x > ${repo}/src.txt`),
        ].join('; '),
        [sock],
      );
      expect(r.stdout.split('\n'), r.stderr).toEqual(['read .env refused', 'write dist ok', 'write src refused', '']);
      expect(readFileSync(join(repo, 'dist', 'a.js'), 'utf8')).toBe('built\n');
    } finally {
      server.close();
    }
  });
});
