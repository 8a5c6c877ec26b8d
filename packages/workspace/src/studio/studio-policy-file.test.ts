import { createHash } from 'node:crypto';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  lstatSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPolicyFileStore } from './studio-policy-file.js';

// The studio's store of <workspace>/egress-policy.json, on real files: hash-checked saves, a whole
// new file renamed into place (0600), a symlink at the path never followed.
const root = mkdtempSync(join(tmpdir(), 'trust-policy-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');
const fresh = () => mkdtempSync(join(root, 'ws-'));

describe('createPolicyFileStore', () => {
  it('reads a missing file as new, creates it 0600, then saves only over the version it read', () => {
    const ws = fresh();
    const file = join(ws, 'egress-policy.json');
    const store = createPolicyFileStore(file);
    expect(store.read()).toEqual({ path: file, exists: false, text: '', sha256: null });
    expect(store.write('{"v":1}', null)).toEqual({ sha256: sha('{"v":1}') });
    expect(readFileSync(file, 'utf8')).toBe('{"v":1}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(() => store.write('{"v":1,"name":"b"}', null)).toThrowTrustError('CONTROL_CONFLICT');
    writeFileSync(file, '{"v":1,"name":"edited elsewhere"}');
    expect(() => store.write('{"v":1,"name":"b"}', sha('{"v":1}'))).toThrowTrustError('CONTROL_CONFLICT');
    expect(readFileSync(file, 'utf8')).toBe('{"v":1,"name":"edited elsewhere"}');
    store.write('{"v":1,"name":"c"}', sha('{"v":1,"name":"edited elsewhere"}'));
    expect(store.read()).toMatchObject({ exists: true, text: '{"v":1,"name":"c"}' });
    expect(readdirSync(ws)).toEqual(['egress-policy.json']);
  });

  it('never follows a symlink at the path: reading and saving refuse it, its target is untouched', () => {
    const ws = fresh();
    const target = join(ws, 'elsewhere.json');
    writeFileSync(target, 'secret target');
    const file = join(ws, 'egress-policy.json');
    symlinkSync(target, file);
    const store = createPolicyFileStore(file);
    expect(() => store.read()).toThrowTrustError('CONTROL_CONFLICT');
    expect(() => store.write('{"v":1}', null)).toThrowTrustError('CONTROL_CONFLICT');
    expect(readFileSync(target, 'utf8')).toBe('secret target');
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it('refuses a file over the size cap and a text over it; the file is unchanged', () => {
    const ws = fresh();
    const file = join(ws, 'egress-policy.json');
    writeFileSync(file, 'x'.repeat(256 * 1024 + 1));
    const store = createPolicyFileStore(file);
    expect(() => store.read()).toThrowTrustError('CONTROL_CONFLICT');
    const small = createPolicyFileStore(join(fresh(), 'egress-policy.json'));
    expect(() => small.write('y'.repeat(256 * 1024 + 1), null)).toThrowTrustError('CONTROL_BAD_REQUEST');
    expect(small.read().exists).toBe(false);
  });
});
