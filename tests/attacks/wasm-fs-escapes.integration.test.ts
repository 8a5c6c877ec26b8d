// Filesystem escapes against @trust/wasm-host with real jco guests (the componentize-js probe in
// worker threads): symlink swaps raced by a second plugin and by a host process, nested grants and
// deny entries (through .., renamed, and raced by host renames), rename-then-symlink inside one
// grant, every mutating call under fs:ro, symlink creation, and an ordinary guest that must keep
// working. Linux only (fs grants need /proc/self/fd); fails, never skips, when the fixture cannot be built.
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPluginHost, type Plugin } from '@trust/wasm-host';

const wasmHostDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'wasm-host');
const tmp = mkdtempSync(join(tmpdir(), 'wasm-fs-attack-'));
const SECRET = 'TOP-SECRET-OUTSIDE-THE-GRANT';
const host = createPluginHost({
  requireSignature: false,
  cacheDir: join(tmp, 'cache'),
  limits: { callTimeoutMs: 240_000 },
});
let probe: Uint8Array;

/** The probe also imports wasi:http and sockets; they are granted against a policy that denies everything. */
const NET = ['http', 'tcp', 'udp'];
const denyAll = {
  name: 'deny-all',
  authorizeHttp: () => ({
    allow: false as const,
    code: 'EGRESS_POLICY_DENIED' as const,
    reason: 'fs attack tests use no network',
  }),
};
const run = (p: Plugin, cmd: string, arg = '') => p.call('run', cmd, arg) as Promise<string>;
const load = (grants: string[], id: string) => host.load(probe, { grants: [...grants, ...NET], id, egress: denyAll });
const fresh = (name: string, files: Record<string, string> = {}) => {
  const dir = join(tmp, name);
  mkdirSync(dir);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
};
/** Reads from a guest's `read-many` tally that returned the secret. */
const leaked = (tally: Record<string, number>) =>
  Object.entries(tally)
    .filter(([k]) => k.startsWith(SECRET.slice(0, 20)))
    .reduce((n, [, v]) => n + v, 0);
const total = (tally: Record<string, number>) => Object.values(tally).reduce((n, v) => n + v, 0);

beforeAll(() => {
  // the probe is built from source (cached by hash) in its own process, as the package's tests do
  execFileSync(process.execPath, [join(wasmHostDir, 'scripts', 'build-fixtures.mjs'), '--only', 'probe'], {
    cwd: wasmHostDir,
    stdio: 'inherit',
  });
  probe = new Uint8Array(readFileSync(join(wasmHostDir, '.fixtures', 'probe.wasm')));
  writeFileSync(join(tmp, 'secret.txt'), SECRET);
}, 600_000);
afterAll(async () => {
  await host.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('attack: symlink swap raced against reads and writes', () => {
  /** A grant dir with data.txt and a symlink `evil` climbing out to a secret file of its own. */
  const raceDir = (name: string) => {
    const secret = join(tmp, `${name}-secret.txt`);
    writeFileSync(secret, SECRET);
    const dir = fresh(name, { 'data.txt': 'inside' });
    symlinkSync(`../${name}-secret.txt`, join(dir, 'evil'));
    return { dir, secret };
  };
  /** Runs `work` while a second plugin swaps data.txt with the link (renames only) until it ends. */
  const whileSwapping = async <T>(dir: string, id: string, work: () => Promise<T>): Promise<T> => {
    const swapper = await load([`fs:rw:${dir}`], id);
    const swapping = run(swapper, 'swap-until-stop', `${dir}\ndata.txt\nevil\nstop`);
    try {
      return await work();
    } finally {
      writeFileSync(join(dir, 'stop'), '');
      expect(Number(await swapping)).toBeGreaterThan(0);
    }
  };

  it(
    'a plugin swapping a file for an escaping symlink, raced by ' + 'a reading plugin: 10,000 reads, none outside',
    async () => {
      const { dir } = raceDir('race-read');
      const reader = await load([`fs:ro:${dir}`], 'race-reader');
      const reads = await whileSwapping(dir, 'race-swapper-r', () =>
        run(reader, 'read-many', `${join(dir, 'data.txt')}\n10000`),
      );
      const tally = JSON.parse(reads) as Record<string, number>;
      expect(total(tally)).toBe(10_000);
      expect(tally.inside, reads).toBeGreaterThan(0); // the reads really raced the file, not only errors
      expect(leaked(tally), reads).toBe(0);
    },
  );

  it('the same swap raced by a writing plugin: no write lands outside', async () => {
    const { dir, secret } = raceDir('race-write');
    const writer = await load([`fs:rw:${dir}`], 'race-writer');
    const writes = await whileSwapping(dir, 'race-swapper-w', () =>
      run(writer, 'write-many', `${join(dir, 'data.txt')}\n5000\nwritten-by-guest`),
    );
    expect(total(JSON.parse(writes) as Record<string, number>)).toBe(5000);
    expect(readFileSync(secret, 'utf8')).toBe(SECRET);
  });

  it('a host process swapping a symlink in and out while a plugin reads 10,000 times', async () => {
    const { dir, secret } = raceDir('host-race');
    symlinkSync(secret, join(dir, 'abs-link'));
    const reader = await load([`fs:ro:${dir}`], 'host-race-reader');
    const script = `const fs = require('fs'); const d = ${JSON.stringify(dir)}; let i = 0;
      for (;;) { const l = i++ % 2 ? 'abs-link' : 'evil';
        fs.renameSync(d + '/data.txt', d + '/held'); fs.renameSync(d + '/' + l, d + '/data.txt');
        fs.renameSync(d + '/data.txt', d + '/' + l); fs.renameSync(d + '/held', d + '/data.txt'); }`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    try {
      const reads = await run(reader, 'read-many', `${join(dir, 'data.txt')}\n10000`);
      const tally = JSON.parse(reads) as Record<string, number>;
      expect(total(tally)).toBe(10_000);
      expect(tally.inside, reads).toBeGreaterThan(0);
      expect(leaked(tally), reads).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('attack: nested grants, deny entries and rename-then-symlink', () => {
  it('fs:rw:<d> with fs:ro:<d>/ro: the outer preopen cannot write the inner grant, by .. or renamed', async () => {
    const dir = fresh('nested-rw', { 'free.txt': 'free' });
    const ro = fresh('nested-rw/ro', { 'locked.txt': 'locked' });
    mkdirSync(join(dir, 'sub'));
    const p = await load([`fs:rw:${dir}`, `fs:ro:${ro}`], 'nested-rw');
    expect(await run(p, 'preopens')).toBe(`${dir},${ro}`);
    // the probe picks the longest preopen whose path prefixes the string: "sub/../ro" goes through the outer one
    expect(await run(p, 'write', `${join(dir, 'sub')}/../ro/locked.txt\npwned`)).toBe('ERROR: read-only');
    expect(await run(p, 'write', `${join(dir, 'sub')}/../ro/new.txt\npwned`)).toBe('ERROR: read-only');
    expect(await run(p, 'rename', `${dir}/sub/../ro\n${join(dir, 'moved')}`)).toBe('ERROR: busy');
    expect(await run(p, 'write', `${join(dir, 'sub')}/../free.txt\nmine`)).toBe('ok');
    expect(await run(p, 'read', `${join(dir, 'sub')}/../ro/locked.txt`)).toBe('locked');
    expect(readFileSync(join(ro, 'locked.txt'), 'utf8')).toBe('locked');
    expect(readdirSync(ro)).toEqual(['locked.txt']);
  });

  it('fs:ro:<d> with fs:rw:<d>/dist: writable inside readable, reached through the outer preopen too', async () => {
    const dir = fresh('nested-ro', { 'src.txt': 'src' });
    const dist = fresh('nested-ro/dist');
    mkdirSync(join(dir, 'sub'));
    const p = await load([`fs:ro:${dir}`, `fs:rw:${dist}`], 'nested-ro');
    expect(await run(p, 'write', `${join(dist, 'a.js')}\nbuilt`)).toBe('ok');
    expect(await run(p, 'write', `${join(dir, 'sub')}/../dist/b.js\nbuilt`)).toBe('ok');
    expect(await run(p, 'write', `${join(dir, 'sub')}/../src.txt\npwned`)).toBe('ERROR: read-only');
    // through the inner preopen, .. never climbs into the outer grant
    expect(await run(p, 'write', `${join(dir, 'dist')}/../src.txt\npwned`)).toBe('ERROR: not-permitted');
    expect(readFileSync(join(dist, 'b.js'), 'utf8')).toBe('built');
    expect(readFileSync(join(dir, 'src.txt'), 'utf8')).toBe('src');
  });

  it('fs:none hides a directory from every path; a missing grant is skipped with a warning', async () => {
    const dir = fresh('deny-w');
    const secrets = fresh('deny-w/secrets', { 'key.txt': SECRET });
    const missing = join(tmp, 'no-such-dir');
    const p = await load([`fs:rw:${dir}`, `fs:none:${secrets}`, `fs:ro:${missing}`], 'deny-w');
    expect(await run(p, 'preopens')).toBe(dir);
    expect(p.warnings.map((w) => [w.code, w.path])).toEqual([['WASM_FS_GRANT_MISSING', `fs:ro:${missing}`]]);
    expect(await run(p, 'read', join(secrets, 'key.txt'))).toBe('ERROR: access');
    expect(await run(p, 'ls', secrets)).toBe('ERROR: access');
    expect(await run(p, 'rename', `${secrets}\n${join(dir, 'open')}`)).toBe('ERROR: access');
    expect(await run(p, 'read', join(missing, 'x'))).toBe('ERROR: no-preopen');
    expect(await run(p, 'write', `${join(dir, 'mine.txt')}\nok`)).toBe('ok');
  });

  it('10,000 outer-preopen writes while the host swaps the ro grant under their name: none lands', async () => {
    const dir = fresh('nested-race');
    const ro = fresh('nested-race/ro', { 'locked.txt': 'locked' });
    fresh('nested-race/other');
    const p = await load([`fs:rw:${dir}`, `fs:ro:${ro}`], 'nested-race');
    // "other" alternates between a plain directory and the read-only grant (renamed by the host)
    const script = `const fs = require('fs'); const d = ${JSON.stringify(dir)};
      for (;;) { fs.renameSync(d + '/other', d + '/tmp'); fs.renameSync(d + '/ro', d + '/other');
        fs.renameSync(d + '/other', d + '/ro'); fs.renameSync(d + '/tmp', d + '/other'); }`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    let tally: Record<string, number>;
    try {
      tally = JSON.parse(await run(p, 'write-many', `${join(dir, 'other', 'x.txt')}\n10000\npwned`));
    } finally {
      child.kill('SIGKILL');
    }
    expect(total(tally)).toBe(10_000);
    expect(tally.ok, JSON.stringify(tally)).toBeGreaterThan(0);
    // wherever the host left it, the read-only grant's directory holds only its own file
    const held = ['ro', 'other', 'tmp'].map((n) => join(dir, n)).filter((d) => existsSync(join(d, 'locked.txt')));
    expect(held).toHaveLength(1);
    expect(readdirSync(held[0] as string)).toEqual(['locked.txt']);
  });

  it('inside one rw grant, renaming a directory away and linking its name outside reaches nothing', async () => {
    const outside = fresh('outside-dir', { 'secret.txt': SECRET });
    const dir = fresh('one-grant');
    const p = await load([`fs:rw:${dir}`], 'renamer');
    expect(await run(p, 'mkdir', join(dir, 'sub'))).toBe('ok');
    expect(await run(p, 'rename', `${join(dir, 'sub')}\n${join(dir, 'sub-away')}`)).toBe('ok');
    expect(await run(p, 'symlink', `../outside-dir\n${join(dir, 'sub')}`)).toBe('ERROR: not-permitted');
    expect(existsSync(join(dir, 'sub'))).toBe(false);
    symlinkSync(outside, join(dir, 'sub')); // the host (or an earlier archive) planted it instead
    expect(await run(p, 'read', join(dir, 'sub', 'secret.txt'))).toBe('ERROR: not-permitted');
    expect(await run(p, 'write', `${join(dir, 'sub', 'secret.txt')}\npwned`)).toBe('ERROR: not-permitted');
    // listing does not follow
    expect(await run(p, 'ls', join(dir, 'sub'))).toMatch(/^ERROR: not-(permitted|directory)$/);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });
});

describe('attack: writes under fs:ro', () => {
  it('every mutating call is refused, across descriptors too, and nothing changes on the host', async () => {
    const rw = fresh('ro-rw', { 'mine.txt': 'mine' });
    const ro = fresh('ro-ro', { 'theirs.txt': 'theirs' });
    mkdirSync(join(ro, 'subdir'));
    const p = await load([`fs:rw:${rw}`, `fs:ro:${ro}`], 'ro-writer');
    const calls: [string, string][] = [
      ['write', `${join(ro, 'new.txt')}\nx`],
      ['write', `${join(ro, 'theirs.txt')}\nx`],
      ['stream-write', `${join(ro, 'theirs.txt')}\nx`],
      ['truncate', join(ro, 'theirs.txt')],
      ['touch', join(ro, 'theirs.txt')],
      ['mkdir', join(ro, 'd')],
      ['rmdir', join(ro, 'subdir')],
      ['unlink', join(ro, 'theirs.txt')],
      ['symlink', `theirs.txt\n${join(ro, 'l')}`],
      ['rename', `${join(ro, 'theirs.txt')}\n${join(ro, 'renamed.txt')}`],
      ['rename', `${join(ro, 'theirs.txt')}\n${join(rw, 'stolen.txt')}`],
      ['rename', `${join(rw, 'mine.txt')}\n${join(ro, 'planted.txt')}`],
      ['link', `${join(ro, 'theirs.txt')}\n${join(rw, 'hard.txt')}`],
      ['link', `${join(rw, 'mine.txt')}\n${join(ro, 'hard.txt')}`],
    ];
    for (const [cmd, arg] of calls) expect(await run(p, cmd, arg), `${cmd} ${arg}`).toBe('ERROR: read-only');
    expect(readdirSync(ro).sort()).toEqual(['subdir', 'theirs.txt']);
    expect(readdirSync(rw)).toEqual(['mine.txt']);
    expect(readFileSync(join(ro, 'theirs.txt'), 'utf8')).toBe('theirs');
  });
});

describe('attack: symlink creation', () => {
  it.each([
    ['../secret.txt', 'l1'],
    ['../../secret.txt', 'd/l2'],
    ['d/../../secret.txt', 'l3'],
    ['..', 'l4'],
    ['/etc/passwd', 'l5'],
  ])('a link to %j at %s is refused', async (target, at) => {
    const dir = join(tmp, 'links');
    if (!existsSync(dir)) mkdirSync(join(dir, 'd'), { recursive: true });
    const p = await load([`fs:rw:${dir}`], `linker-${at}`);
    expect(await run(p, 'symlink', `${target}\n${join(dir, at)}`)).toBe('ERROR: not-permitted');
    expect(existsSync(join(dir, at))).toBe(false);
    await p.dispose();
  });

  it('links that stay inside are created and followed', async () => {
    const dir = fresh('links-in', { 'f.txt': 'inside' });
    mkdirSync(join(dir, 'd'));
    const p = await load([`fs:rw:${dir}`], 'linker-in');
    expect(await run(p, 'symlink', `f.txt\n${join(dir, 'l')}`)).toBe('ok');
    expect(await run(p, 'symlink', `../f.txt\n${join(dir, 'd', 'up')}`)).toBe('ok');
    expect(await run(p, 'read', join(dir, 'l'))).toBe('inside');
    expect(await run(p, 'read', join(dir, 'd', 'up'))).toBe('inside');
    expect(await run(p, 'readlink', join(dir, 'd', 'up'))).toBe('../f.txt');
  });
});

describe('an ordinary guest still works', () => {
  it('reads a tree, writes, renames, makes directories, streams', async () => {
    const dir = fresh('work', { 'a.txt': 'alpha' });
    mkdirSync(join(dir, 'nested', 'deeper'), { recursive: true });
    writeFileSync(join(dir, 'nested', 'deeper', 'b.txt'), 'beta');
    const p = await load([`fs:rw:${dir}`], 'worker');
    expect(await run(p, 'tree', dir)).toBe(
      'a.txt:regular-file,nested:directory,nested/deeper:directory,nested/deeper/b.txt:regular-file',
    );
    expect(await run(p, 'read', join(dir, 'nested', 'deeper', 'b.txt'))).toBe('beta');
    expect(await run(p, 'mkdir', join(dir, 'out'))).toBe('ok');
    expect(await run(p, 'write', `${join(dir, 'out', 'c.txt')}\ngamma`)).toBe('ok');
    expect(await run(p, 'rename', `${join(dir, 'out', 'c.txt')}\n${join(dir, 'nested', 'c.txt')}`)).toBe('ok');
    expect(await run(p, 'stream-write', `${join(dir, 'big.txt')}\n${'x'.repeat(200_000)}`)).toBe('ok');
    expect((await run(p, 'stream-read', join(dir, 'big.txt'))).length).toBe(200_000);
    expect(await run(p, 'unlink', join(dir, 'a.txt'))).toBe('ok');
    expect(await run(p, 'rmdir', join(dir, 'out'))).toBe('ok');
    expect(readFileSync(join(dir, 'nested', 'c.txt'), 'utf8')).toBe('gamma');
    expect(readdirSync(dir).sort()).toEqual(['big.txt', 'nested']);
    expect(await run(p, 'read', join(dir, '..', 'secret.txt'))).toMatch(/^ERROR: (not-permitted|no-preopen)$/);
  });
});
