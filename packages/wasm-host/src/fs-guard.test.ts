import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { _createPreopenDescriptor } from '@bytecodealliance/preview2-shim/filesystem';
import { tempDir } from '../test/helpers.js';
import { createFsGuard } from './fs-guard.js';

type D = Record<string, (...a: unknown[]) => unknown>;
const tmp = tempDir();
afterAll(tmp.cleanup);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return 'no throw';
}

describe('fs guard on preview2-shim descriptors', () => {
  const rw = join(tmp.dir, 'rw');
  const ro = join(tmp.dir, 'ro');
  mkdirSync(rw);
  mkdirSync(ro);
  writeFileSync(join(rw, 'f.txt'), 'x');
  writeFileSync(join(ro, 'g.txt'), 'y');
  const guard = createFsGuard();
  const rwDir = guard.wrap(_createPreopenDescriptor(rw) as unknown as object, 'rw', true) as D;
  const roDir = guard.wrap(_createPreopenDescriptor(ro) as unknown as object, 'ro', true) as D;

  it.each([
    ['createDirectoryAt', ['d']],
    ['unlinkFileAt', ['g.txt']],
    ['removeDirectoryAt', ['d']],
    ['symlinkAt', ['g.txt', 'l']],
    ['renameAt', ['g.txt', roDir, 'h.txt']],
    ['linkAt', [{}, 'g.txt', roDir, 'h.txt']],
    ['setTimesAt', [{}, 'g.txt', { tag: 'now' }, { tag: 'now' }]],
  ])('ro refuses %s', (method, args) => {
    expect(thrown(() => roDir[method]!(...args))).toBe('read-only');
  });

  it('ro refuses opening for write, create or truncate, and children inherit ro', () => {
    expect(thrown(() => roDir.openAt!({}, 'g.txt', {}, { write: true }))).toBe('read-only');
    expect(thrown(() => roDir.openAt!({}, 'new.txt', { create: true }, { read: true }))).toBe('read-only');
    expect(thrown(() => roDir.openAt!({}, 'g.txt', { truncate: true }, { read: true }))).toBe('read-only');
    const child = roDir.openAt!({}, 'g.txt', {}, { read: true }) as D;
    expect(guard.modeOf(child)).toBe('ro');
    expect(thrown(() => child.write!(new Uint8Array([1]), 0n))).toBe('read-only');
    expect(thrown(() => child.setSize!(0n))).toBe('read-only');
  });

  it('rw refuses a read-only target descriptor for rename and link', () => {
    expect(thrown(() => rwDir.renameAt!('f.txt', roDir, 'moved.txt'))).toBe('read-only');
    expect(thrown(() => rwDir.linkAt!({}, 'f.txt', roDir, 'linked.txt'))).toBe('read-only');
    expect(existsSync(join(ro, 'moved.txt')) || existsSync(join(ro, 'linked.txt'))).toBe(false);
    rwDir.renameAt!('f.txt', rwDir, 'renamed.txt');
    expect(existsSync(join(rw, 'renamed.txt'))).toBe(true);
  });

  it('refuses escapes out of the preopen', () => {
    expect(thrown(() => rwDir.openAt!({}, '../ro/g.txt', {}, { read: true }))).toBe('not-permitted');
    expect(thrown(() => rwDir.openAt!({}, '/etc/passwd', {}, { read: true }))).toBe('not-permitted');
  });

  it('lists a preopen directly (works around readDirectory on preopens)', () => {
    const stream = roDir.readDirectory!() as D;
    expect((stream.readDirectoryEntry!() as { name: string }).name).toBe('g.txt');
  });
});
