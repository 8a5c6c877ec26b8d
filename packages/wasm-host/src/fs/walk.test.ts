import { mkdirSync, openSync, closeSync, symlinkSync, writeFileSync, constants } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers.js';
import { walkBeneath } from './walk.js';

const tmp = tempDir('fs-walk-');
afterAll(tmp.cleanup);
const root = join(tmp.dir, 'root');
mkdirSync(join(root, 'a', 'b'), { recursive: true });
writeFileSync(join(root, 'a', 'b', 'f.txt'), 'inside');
writeFileSync(join(tmp.dir, 'secret.txt'), 'outside');
symlinkSync('b', join(root, 'a', 'to-b'));
symlinkSync('../a/b/f.txt', join(root, 'a', 'to-f'));
symlinkSync('../..', join(root, 'a', 'up2'));
symlinkSync(join(tmp.dir, 'secret.txt'), join(root, 'abs'));
symlinkSync('loop1', join(root, 'loop2'));
symlinkSync('loop2', join(root, 'loop1'));
const base = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
const scope = { mode: 'rw', roots: new Map() } as const;
afterAll(() => closeSync(base));

function end(path: string, follow = false) {
  const e = walkBeneath(base, path, follow, scope);
  const out = { name: e.name, depth: e.depth };
  e.release();
  return out;
}
const fails = (path: string, follow = false) => {
  try {
    walkBeneath(base, path, follow, scope).release();
  } catch (e) {
    return e;
  }
  return 'no throw';
};

describe('walkBeneath', () => {
  it.each([
    ['a/b/f.txt', false, { name: 'f.txt', depth: 2 }],
    ['a//./b/f.txt', false, { name: 'f.txt', depth: 2 }],
    ['a/b/../b/f.txt', false, { name: 'f.txt', depth: 2 }],
    ['a/to-b/f.txt', false, { name: 'f.txt', depth: 2 }],
    ['a/to-f', false, { name: 'to-f', depth: 1 }],
    ['a/to-f', true, { name: 'f.txt', depth: 2 }],
    ['.', false, { name: undefined, depth: 0 }],
    ['a/..', false, { name: undefined, depth: 0 }],
  ])('%j (follow %s) ends at %j', (path, follow, expected) => {
    expect(end(path, follow)).toEqual(expected);
  });

  it.each([
    ['/etc/passwd', false, 'not-permitted'],
    ['..', false, 'not-permitted'],
    ['../root/a', false, 'not-permitted'],
    ['a/../../x', false, 'not-permitted'],
    ['a/up2/secret.txt', false, 'not-permitted'],
    ['abs/x', false, 'not-permitted'],
    ['abs', true, 'not-permitted'],
    ['loop1/x', false, 'loop'],
    ['a/b/f.txt/x', false, 'not-directory'],
    ['missing/x', false, 'no-entry'],
    ['', false, 'no-entry'],
    ['a\0b', false, 'invalid'],
  ])('%j (follow %s) is refused with %s', (path, follow, code) => {
    expect(fails(path, follow)).toBe(code);
  });

  it('does not follow a final symlink unless asked', () => {
    expect(end('abs')).toEqual({ name: 'abs', depth: 0 });
    expect(end('a/up2')).toEqual({ name: 'up2', depth: 1 });
  });
});
