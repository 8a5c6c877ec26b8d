import { mkdirSync, symlinkSync, writeFileSync, fstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers.js';
import { pinGrantDirs } from './pin-grants.js';

const tmp = tempDir('fs-pin-');
afterAll(tmp.cleanup);
mkdirSync(join(tmp.dir, 'real', 'inner'), { recursive: true });
writeFileSync(join(tmp.dir, 'file'), 'x');
symlinkSync(join(tmp.dir, 'real'), join(tmp.dir, 'link'));

const err = (path: string) => {
  try {
    pinGrantDirs([{ mode: 'ro', path }]).close();
  } catch (e) {
    return e as { code: string; message: string };
  }
  return { code: 'no throw', message: '' };
};

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
    ['missing', /does not exist/],
    ['file', /is not a directory/],
    ['link', /through a symlink/],
    ['link/inner', /through a symlink/],
  ])('refuses %s', (rel, message) => {
    const e = err(join(tmp.dir, rel));
    expect(e.code).toBeTrustCode('WASM_FS_GRANT_INVALID');
    expect(e.message).toMatch(message);
  });
});
