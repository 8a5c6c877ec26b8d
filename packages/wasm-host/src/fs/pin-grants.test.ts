import { mkdirSync, renameSync, symlinkSync, writeFileSync, fstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { thrownBy } from '@trust/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers.js';
import { pinGrantDirs } from './pin-grants.js';

const tmp = tempDir('fs-pin-');
afterAll(tmp.cleanup);
mkdirSync(join(tmp.dir, 'real', 'inner'), { recursive: true });
writeFileSync(join(tmp.dir, 'file'), 'x');
symlinkSync(join(tmp.dir, 'real'), join(tmp.dir, 'link'));

const err = (path: string) => thrownBy(() => pinGrantDirs([{ mode: 'ro', path }]).close());

describe('pinGrantDirs', () => {
  it('opens each granted directory', () => {
    const p = pinGrantDirs([
      { mode: 'ro', path: join(tmp.dir, 'real') },
      { mode: 'rw', path: join(tmp.dir, 'real', 'inner') },
    ]);
    expect(p.dirs.map((d) => d.mode)).toEqual(['ro', 'rw']);
    expect(fstatSync(p.dirs[1]!.fd).ino).toBe(statSync(join(tmp.dir, 'real', 'inner')).ino);
    p.close();
  });

  it.each([
    ['missing', 'does not exist'],
    ['real/gone', 'does not exist'],
    ['gone/deeper', expect.stringMatching(/\/gone is missing$/)],
  ])('skips a grant that does not exist (%s), with the reason, and opens the rest', (rel, reason) => {
    const p = pinGrantDirs([
      { mode: 'ro', path: join(tmp.dir, rel) },
      { mode: 'rw', path: join(tmp.dir, 'real') },
    ]);
    expect(p.skipped).toEqual([{ mode: 'ro', path: join(tmp.dir, rel), reason }]);
    expect(p.dirs.map((d) => d.path)).toEqual([join(tmp.dir, 'real')]);
    p.close();
  });

  it('pins a deny entry (directory or file) by identity, and records nested entries in roots', () => {
    writeFileSync(join(tmp.dir, 'real', 'inner', 'key'), 'k');
    const p = pinGrantDirs([
      { mode: 'rw', path: join(tmp.dir, 'real') },
      { mode: 'ro', path: join(tmp.dir, 'real', 'inner') },
      { mode: 'none', path: join(tmp.dir, 'real', 'inner', 'key') },
      { mode: 'none', path: join(tmp.dir, 'real', 'nothing-here') },
    ]);
    expect(p.dirs.map((d) => d.mode)).toEqual(['rw', 'ro', 'none']);
    expect(p.skipped.map((s) => s.mode)).toEqual(['none']);
    const id = (path: string) => {
      const s = statSync(path, { bigint: true });
      return `${s.dev}:${s.ino}`;
    };
    expect([...p.roots]).toEqual([
      [id(join(tmp.dir, 'real', 'inner')), 'ro'],
      [id(join(tmp.dir, 'real', 'inner', 'key')), 'none'],
    ]);
    p.close();
  });

  it('refuses a deny entry that is a symlink', () => {
    const e = thrownBy(() =>
      pinGrantDirs([
        { mode: 'rw', path: tmp.dir },
        { mode: 'none', path: join(tmp.dir, 'link') },
      ]).close(),
    );
    expect(e.code).toBeTrustCode('WASM_FS_GRANT_INVALID');
    expect(e.message).toMatch(/is a symlink/);
  });

  it.each([
    ['file', /is not a directory/],
    ['link', /through a symlink/],
    ['link/inner', /through a symlink/],
  ])('refuses %s', (rel, message) => {
    const e = err(join(tmp.dir, rel));
    expect(e.code).toBeTrustCode('WASM_FS_GRANT_INVALID');
    expect(e.message).toMatch(message);
  });

  it('calls check with each directory as opened, and a throwing check refuses and closes everything', () => {
    const seen: { path: string; ino: bigint }[] = [];
    const fds: number[] = [];
    const grants = [
      { mode: 'ro' as const, path: join(tmp.dir, 'real') },
      { mode: 'rw' as const, path: join(tmp.dir, 'real', 'inner') },
    ];
    expect(() =>
      pinGrantDirs(grants, (d) => {
        seen.push({ path: d.path, ino: fstatSync(d.fd, { bigint: true }).ino });
        fds.push(d.fd);
        if (d.path.endsWith('inner')) throw new Error('refused by the check');
      }),
    ).toThrow('refused by the check');
    expect(seen).toEqual([
      { path: grants[0]!.path, ino: statSync(grants[0]!.path, { bigint: true }).ino },
      { path: grants[1]!.path, ino: statSync(grants[1]!.path, { bigint: true }).ino },
    ]);
    for (const fd of fds) expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });

  it('the check sees the directory the guest gets, even when the path is swapped right after the open', () => {
    const a = join(tmp.dir, 'swap-a');
    const b = join(tmp.dir, 'swap-b');
    mkdirSync(a);
    mkdirSync(b);
    const inoA = statSync(a, { bigint: true }).ino;
    let checked = -1n;
    const p = pinGrantDirs([{ mode: 'rw', path: a }], (d) => {
      // a rename at this point moves the path string, never the descriptor being checked
      renameSync(a, join(tmp.dir, 'swap-moved'));
      renameSync(b, a);
      checked = fstatSync(d.fd, { bigint: true }).ino;
    });
    expect(checked).toBe(inoA);
    expect(fstatSync(p.dirs[0]!.fd, { bigint: true }).ino).toBe(inoA);
    p.close();
  });
});
