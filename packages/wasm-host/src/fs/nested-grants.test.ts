import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeOf, drop, guestFs, type D } from '../../test/guest-fs.js';
import { tempDir } from '../../test/helpers.js';

// Nested grants: each grant is its own preopen, and a path reached through an outer preopen gets
// the rights of the innermost entry it passes, by the identity of the directory, not its name.
const tmp = tempDir('fs-nested-');
afterAll(tmp.cleanup);
const text = (d: D) => new TextDecoder().decode(d.read!(1024n, 0n)[0]);
const open = (d: D, path: string, flags: object = { read: true }, openFlags: object = {}) =>
  d.openAt!({ symlinkFollow: true }, path, openFlags, flags) as D;
const write = (d: D, path: string, body: string) => {
  const f = open(d, path, { write: true }, { create: true, truncate: true });
  f.write!(new TextEncoder().encode(body), 0n);
  drop(f);
};

describe('fs:ro:/a with fs:rw:/a/b (a writable directory inside a readable one)', () => {
  const a = join(tmp.dir, 'ro-outer');
  mkdirSync(join(a, 'b'), { recursive: true });
  mkdirSync(join(a, 'c'));
  writeFileSync(join(a, 'top.txt'), 'top');
  const fs = guestFs([
    { mode: 'ro', path: a },
    { mode: 'rw', path: join(a, 'b') },
  ]);
  afterAll(fs.dispose);
  const outer = fs.dir(a);

  it('gives each grant its own preopen', () => {
    expect((fs.gfs.preopens.getDirectories() as [D, string][]).map(([, p]) => p)).toEqual([a, join(a, 'b')]);
  });

  it('writes into b through the outer preopen, directly and through ..', () => {
    write(outer, 'b/one.txt', '1');
    write(outer, 'c/../b/two.txt', '2');
    outer.createDirectoryAt!('b/sub');
    write(outer, 'b/sub/../three.txt', '3');
    expect(readFileSync(join(a, 'b', 'two.txt'), 'utf8')).toBe('2');
    expect(readFileSync(join(a, 'b', 'three.txt'), 'utf8')).toBe('3');
  });

  it('stays read-only outside b, also when coming back out of b with ..', () => {
    expect(codeOf(() => write(outer, 'x.txt', 'no'))).toBe('read-only');
    expect(codeOf(() => write(outer, 'b/../x.txt', 'no'))).toBe('read-only');
    expect(codeOf(() => outer.createDirectoryAt!('b/../c/d'))).toBe('read-only');
    const bDir = open(outer, 'b', { read: true, mutateDirectory: true }, { directory: true });
    write(bDir, 'four.txt', '4');
    expect(codeOf(() => bDir.openAt!({}, '../x.txt', { create: true }, { write: true }))).toBe('not-permitted');
    drop(bDir);
    expect(existsSync(join(a, 'x.txt'))).toBe(false);
  });

  it('refuses to rename or remove the inner grant itself (busy, like a mount point)', () => {
    const b = fs.dir(join(a, 'b'));
    b.createDirectoryAt!('keep');
    expect(codeOf(() => outer.renameAt!('b', outer, 'moved'))).toBe('read-only');
    expect(existsSync(join(a, 'b'))).toBe(true);
  });
});

describe('fs:rw:/a with fs:ro:/a/b (read-only inside writable)', () => {
  const a = join(tmp.dir, 'rw-outer');
  const b = join(a, 'b');
  mkdirSync(b, { recursive: true });
  writeFileSync(join(b, 'locked.txt'), 'locked');
  const fs = guestFs([
    { mode: 'rw', path: a },
    { mode: 'ro', path: b },
  ]);
  afterAll(fs.dispose);
  const outer = fs.dir(a);

  it.each([
    ['createDirectoryAt', ['b/d']],
    ['unlinkFileAt', ['b/locked.txt']],
    ['symlinkAt', ['locked.txt', 'b/l']],
    ['setTimesAt', [{}, 'b/locked.txt', { tag: 'now' }, { tag: 'now' }]],
    ['renameAt', ['b/locked.txt', 'outer', 'stolen.txt']],
    ['renameAt', ['stolen.txt', 'outer', 'b/planted.txt']],
    ['linkAt', [{}, 'b/locked.txt', 'outer', 'hl.txt']],
  ])('the outer preopen cannot %s %j inside b', (method, args) => {
    writeFileSync(join(a, 'stolen.txt'), 'mine');
    const real = args.map((x) => (x === 'outer' ? outer : x));
    const call = outer[method] as (...x: unknown[]) => unknown;
    expect(codeOf(() => call.apply(outer, real))).toBe('read-only');
    expect(readFileSync(join(b, 'locked.txt'), 'utf8')).toBe('locked');
  });

  it('cannot open a file in b for writing, nor truncate it, through the outer preopen', () => {
    expect(codeOf(() => open(outer, 'b/locked.txt', { write: true }))).toBe('read-only');
    expect(codeOf(() => open(outer, 'b/locked.txt', { read: true }, { truncate: true }))).toBe('read-only');
    expect(codeOf(() => open(outer, 'x/../b/locked.txt', { write: true }))).toBe('no-entry');
    expect(readFileSync(join(b, 'locked.txt'), 'utf8')).toBe('locked');
  });

  it('renaming b itself is refused (busy), and its name cannot be replaced', () => {
    mkdirSync(join(a, 'empty'), { recursive: true });
    expect(codeOf(() => outer.renameAt!('b', outer, 'b2'))).toBe('busy');
    expect(codeOf(() => outer.renameAt!('empty', outer, 'b'))).toBe('busy');
    expect(codeOf(() => (outer.removeDirectoryAt as (p: string) => void)('b'))).toBe('busy');
    expect(existsSync(join(b, 'locked.txt'))).toBe(true);
  });

  it('b keeps its rights when the host renames it: they follow the directory, not the name', () => {
    renameSync(b, join(a, 'b2'));
    mkdirSync(b); // a new, ordinary directory under the old name: the outer grant's own
    try {
      expect(codeOf(() => open(outer, 'b2/locked.txt', { write: true }))).toBe('read-only');
      expect(codeOf(() => outer.unlinkFileAt!('b2/locked.txt'))).toBe('read-only');
      write(outer, 'b/new.txt', 'ok');
      expect(text(open(outer, 'b2/locked.txt'))).toBe('locked');
    } finally {
      rmSync(b, { recursive: true });
      renameSync(join(a, 'b2'), b);
    }
  });

  it('still reads and writes the rest of the outer grant', () => {
    write(outer, 'free.txt', 'free');
    expect(text(open(outer, 'free.txt'))).toBe('free');
    expect(text(open(outer, 'b/locked.txt'))).toBe('locked');
  });
});

describe('deny entries (fs:none)', () => {
  const a = join(tmp.dir, 'deny');
  mkdirSync(join(a, 'secrets', 'deep'), { recursive: true });
  mkdirSync(join(a, 'pub'));
  writeFileSync(join(a, 'secrets', 'key'), 'SECRET');
  writeFileSync(join(a, 'secrets', 'deep', 'k2'), 'SECRET2');
  writeFileSync(join(a, '.env'), 'TOKEN=1');
  const fs = guestFs([
    { mode: 'rw', path: a },
    { mode: 'none', path: join(a, 'secrets') },
    { mode: 'none', path: join(a, '.env') },
    { mode: 'none', path: join(a, 'absent') },
  ]);
  afterAll(fs.dispose);
  const outer = fs.dir(a);

  it('has no preopen for a deny entry, and skips a missing one with its reason', () => {
    expect((fs.gfs.preopens.getDirectories() as [D, string][]).map(([, p]) => p)).toEqual([a]);
    expect(fs.skipped).toEqual([{ mode: 'none', path: join(a, 'absent'), reason: 'does not exist' }]);
  });

  it.each([
    ['open', () => open(outer, 'secrets/key')],
    ['open through ..', () => open(outer, 'pub/../secrets/key')],
    ['open deeper', () => open(outer, 'secrets/deep/k2')],
    ['open the directory', () => open(outer, 'secrets', { read: true }, { directory: true })],
    ['stat inside', () => outer.statAt!({}, 'secrets/key')],
    ['stat the entry', () => outer.statAt!({}, 'secrets')],
    ['open the denied file', () => open(outer, '.env')],
    ['truncate the denied file', () => open(outer, '.env', { write: true }, { truncate: true })],
    ['stat the denied file', () => outer.statAt!({}, '.env')],
    ['link the denied file', () => outer.linkAt!({}, '.env', outer, 'copy')],
    ['rename the denied file', () => outer.renameAt!('.env', outer, 'moved')],
    ['move a file out', () => outer.renameAt!('secrets/key', outer, 'stolen')],
    ['unlink inside', () => outer.unlinkFileAt!('secrets/key')],
  ])('%s is access', (_what, fn) => {
    expect(codeOf(fn)).toBe('access');
    expect(readFileSync(join(a, 'secrets', 'key'), 'utf8')).toBe('SECRET');
    expect(readFileSync(join(a, '.env'), 'utf8')).toBe('TOKEN=1');
  });

  it('the denied directory itself cannot be renamed, removed or replaced', () => {
    expect(codeOf(() => outer.renameAt!('secrets', outer, 'open-now'))).toBe('access');
    expect(codeOf(() => (outer.removeDirectoryAt as (p: string) => void)('secrets'))).toBe('access');
    mkdirSync(join(a, 'pub', 'decoy'), { recursive: true });
    expect(codeOf(() => outer.renameAt!('pub/decoy', outer, 'secrets'))).toBe('access');
    expect(existsSync(join(a, 'secrets', 'key'))).toBe(true);
  });

  it('stays hidden after the host renames it: identity, not name', () => {
    renameSync(join(a, 'secrets'), join(a, 'renamed'));
    try {
      expect(codeOf(() => open(outer, 'renamed/key'))).toBe('access');
    } finally {
      renameSync(join(a, 'renamed'), join(a, 'secrets'));
    }
  });

  it('the rest of the grant works', () => {
    write(outer, 'pub/x.txt', 'x');
    expect(text(open(outer, 'pub/x.txt'))).toBe('x');
  });
});

describe('the directories between an outer entry and a nested one', () => {
  const a = join(tmp.dir, 'between');
  mkdirSync(join(a, 'x', 'y', 'secrets'), { recursive: true });
  writeFileSync(join(a, 'x', 'y', 'secrets', 'key'), 'SECRET');
  writeFileSync(join(a, 'x', 'y', 'free.txt'), 'free');
  const fs = guestFs([
    { mode: 'rw', path: a },
    { mode: 'none', path: join(a, 'x', 'y', 'secrets') },
  ]);
  afterAll(fs.dispose);
  const outer = fs.dir(a);

  it('cannot be renamed or replaced (a decoy there would take the deny entry at the next load)', () => {
    expect(codeOf(() => outer.renameAt!('x', outer, 'moved'))).toBe('busy');
    expect(codeOf(() => outer.renameAt!('x/y', outer, 'moved'))).toBe('busy');
    mkdirSync(join(a, 'decoy'));
    expect(codeOf(() => outer.renameAt!('decoy', outer, 'x'))).toBe('busy');
    expect(existsSync(join(a, 'x', 'y', 'secrets', 'key'))).toBe(true);
  });

  it('keep the rights of their surroundings', () => {
    write(outer, 'x/y/new.txt', 'new');
    expect(text(open(outer, 'x/y/free.txt'))).toBe('free');
    expect(codeOf(() => open(outer, 'x/y/secrets/key'))).toBe('access');
  });
});
