// Every error code the packages throw, deny with or report is in @trust/core's lists, and none is
// built at run time: a code added on another branch without its list entry fails here at merge.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'scripts/list-error-codes.mjs'), ...args], { cwd: root, encoding: 'utf8' });

describe('error codes', () => {
  it('lists every code the source uses, and the source builds none at run time', () => {
    const r = run();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // The scan sees the tree: hundreds of codes, not an empty walk.
    const used = Number(/(\d+) used by the source/.exec(r.stdout)?.[1] ?? 0);
    expect(used).toBeGreaterThan(300);
  });

  it('the codemod has nothing left to rewrite in the tests', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts/codemods/typed-error-codes.mjs'), '--check'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.stdout).toContain('would rewrite 0 assertion(s)');
    expect(r.status).toBe(0);
  });
});
