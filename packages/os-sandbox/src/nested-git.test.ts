// The nested-repository scan on a real directory tree: what it finds, what it skips, and that a
// cached listing is never trusted once the directory changed (even with its mtime set back).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNestedGitScanner } from './nested-git.js';
import { freshDir } from './test-helpers.js';

describe('createNestedGitScanner', () => {
  let root: string;
  beforeEach(() => {
    root = freshDir('trust-nested-');
    mkdirSync(join(root, '.git'));
    mkdirSync(join(root, 'vendor', 'lib', '.git'), { recursive: true });
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', '.git'), 'gitdir: ../.git/modules/sub\n');
    mkdirSync(join(root, 'node_modules', 'pkg', '.git'), { recursive: true });
    mkdirSync(join(root, 'a', 'b', 'c', 'd', '.git'), { recursive: true });
    mkdirSync(join(root, 'hidden', 'repo', '.git'), { recursive: true });
    symlinkSync(join(root, 'vendor'), join(root, 'link'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it(
    'finds nested .git directories and gitfiles within the depth bound, ' +
      'not the root, node_modules, skipped paths or symlinks',
    () => {
      const found = createNestedGitScanner().scan([root], { skip: [join(root, 'hidden')] });
      expect(found.sort()).toEqual([join(root, 'sub', '.git'), join(root, 'vendor', 'lib', '.git')]);
      expect(createNestedGitScanner().scan([root], { maxDepth: 5 })).toContain(join(root, 'a', 'b', 'c', 'd', '.git'));
    },
  );

  it('stops at maxDirs', () => {
    const s = createNestedGitScanner();
    s.scan([root], { maxDirs: 2 });
    expect(s.lastScan.visited).toBe(2);
  });

  it('lists only directories that changed since the last scan', () => {
    const s = createNestedGitScanner({ racyMs: 0, now: () => Date.now() + 60_000 });
    s.scan([root]);
    const first = s.lastScan;
    expect(first.listed).toBe(first.visited);
    s.scan([root]);
    expect(s.lastScan.visited).toBe(first.visited);
    expect(s.lastScan.listed).toBe(0);
  });

  it('finds a repository added to a cached directory even when its mtime is set back (ctime decides)', async () => {
    const s = createNestedGitScanner({ racyMs: 0, now: () => Date.now() + 60_000 });
    s.scan([root]);
    const vendor = join(root, 'vendor');
    const before = statSync(vendor, { bigint: true });
    // Let the kernel's coarse clock move on, so the change gets a new ctime.
    for (let i = 0; i < 100 && statSync(root, { bigint: true }).ctimeNs === before.ctimeNs; i++) {
      await new Promise((ok) => setTimeout(ok, 10));
      writeFileSync(join(root, 'tick'), String(i));
    }
    mkdirSync(join(vendor, 'planted', '.git'), { recursive: true });
    // Set mtime back to the exact old nanosecond, as a run hiding its change would (touch uses utimensat).
    const ns = before.mtimeNs;
    execFileSync('touch', [
      '-m',
      '-d',
      `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`,
      vendor,
    ]);
    expect(statSync(vendor, { bigint: true }).mtimeNs).toBe(before.mtimeNs);
    expect(statSync(vendor, { bigint: true }).ctimeNs).not.toBe(before.ctimeNs);
    expect(s.scan([root])).toContain(join(vendor, 'planted', '.git'));
  });

  it('lists a directory again while its ctime is within the racy window', () => {
    const s = createNestedGitScanner();
    s.scan([root]);
    s.scan([root]);
    // Everything here was created just now: nothing is trusted from the cache yet.
    expect(s.lastScan.listed).toBe(s.lastScan.visited);
  });
});

describe('createNestedGitScanner options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean"', () => {
    expect(() => createNestedGitScanner({ racyMS: 0 } as never)).toRefuseOptions('SANDBOX_POLICY_INVALID', [
      { code: 'SANDBOX_POLICY_UNKNOWN_KEY', path: 'racyMS', hint: /did you mean "racyMs"\?/ },
    ]);
  });

  it.each([
    [{ racyMs: -1 }, 'racyMs', /e\.g\. 2000/],
    [{ now: 5 }, 'now', /Date\.now/],
  ])('%j: an invalid value is refused with a valid example', (options, path, hint) => {
    expect(() => createNestedGitScanner(options as never)).toRefuseOptions('SANDBOX_POLICY_INVALID', [
      { code: 'SANDBOX_POLICY_INVALID', path, hint },
    ]);
  });

  it('passes valid options: the injected clock is the one used', () => {
    let calls = 0;
    const scanner = createNestedGitScanner({ racyMs: 0, now: () => ++calls });
    expect(scanner.scan(['/nonexistent-root'])).toEqual([]);
    expect(calls).toBeGreaterThan(0);
  });
});
