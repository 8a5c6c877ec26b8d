import { existsSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAdf } from './adf-file.js';

// An .adf file holds config, history, files and sealed keys: only its owner may read it.
let previous: number;
beforeEach(() => {
  previous = process.umask(0o022); // the usual umask, under which files default to 0644
});
afterEach(() => {
  process.umask(previous);
});

describe('.adf file mode', () => {
  it('creates the file and its WAL companions 0600 under a 022 umask', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'adf-mode-')), 'a.adf');
    const adf = createAdf(path);
    adf.files.write('notes.md', 'private');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    for (const side of [`${path}-wal`, `${path}-shm`])
      if (existsSync(side)) expect(statSync(side).mode & 0o777).toBe(0o600);
    adf.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('never creates through an existing path or a dangling symlink', () => {
    const dir = mkdtempSync(join(tmpdir(), 'adf-mode-'));
    writeFileSync(join(dir, 'taken.adf'), 'x');
    expect(() => createAdf(join(dir, 'taken.adf'))).toThrowTrustError('ADF_EXISTS');
    symlinkSync(join(dir, 'elsewhere.adf'), join(dir, 'link.adf'));
    expect(() => createAdf(join(dir, 'link.adf'))).toThrowTrustError('ADF_EXISTS');
    expect(existsSync(join(dir, 'elsewhere.adf'))).toBe(false);
  });
});
