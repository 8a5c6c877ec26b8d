// The pool of run directories on a real directory: reuse of empty ones, removal of the rest.
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunDirPool } from './run-dirs.js';
import { freshDir } from './test-helpers.js';

describe('createRunDirPool', () => {
  let parent: string;
  beforeEach(() => {
    parent = freshDir('trust-rundirs-');
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('makes private directories, one per run at a time, and reuses one given back empty', () => {
    const pool = createRunDirPool(parent);
    const a = pool.take();
    const b = pool.take();
    expect(a).not.toBe(b);
    expect(statSync(a).mode & 0o777).toBe(0o700);
    pool.give(a);
    expect(pool.take()).toBe(a);
    expect(readdirSync(parent).sort()).toEqual(['run-0', 'run-1']);
  });

  it('removes a directory given back with something left in it, and never hands it out again', () => {
    const pool = createRunDirPool(parent);
    const a = pool.take();
    writeFileSync(join(a, 'egress.sock'), '');
    pool.give(a);
    expect(existsSync(a)).toBe(false);
    const next = pool.take();
    expect(next).not.toBe(a);
    expect(readdirSync(next)).toEqual([]);
  });
});
