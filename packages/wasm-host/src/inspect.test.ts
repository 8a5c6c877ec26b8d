import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, tempDir, writePackage } from '../test/helpers.js';
import { packPackage } from './archive.js';
import { inspectPackage } from './inspect.js';
import { readPackageDir } from './package-files.js';
import { generateSigningKey, signPackage } from './signing.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

const toml = (caps: string[]) =>
  `[package]\nname = "probe"\nversion = "2.0.0"\ninterface = "trust:probe"\n\n` +
  `[wasm]\ncomponent = "probe.wasm"\ncapabilities = ${JSON.stringify(caps)}\n`;

describe('inspectPackage', () => {
  it('lists capabilities first with risk notes, the signer, the digest and real imports/exports', async () => {
    const { privateKey, publicKey } = generateSigningKey();
    const dir = writePackage(join(tmp.dir, 'p'), toml(['network', 'env:API_BASE', 'fs:ro:/etc/certs']), {
      'probe.wasm': fixture('probe'),
    });
    const signed = signPackage(await readPackageDir(dir), privateKey).package;
    const report = await inspectPackage(signed, { trustedKeys: [publicKey] });
    expect(Object.keys(report)[0]).toBe('capabilities');
    expect(report.capabilities.map((c) => c.capability)).toEqual(['network', 'env:API_BASE', 'fs:ro:/etc/certs']);
    expect(report.capabilities[0]!.risk).toMatch(/any public host/);
    expect(report.signature).toEqual({ status: 'valid', keyId: publicKey.keyId });
    expect(report.component.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(report.exports).toEqual(['run: func(cmd: string, arg: string) -> string']);
    expect(report.imports).toContain('wasi:http/outgoing-handler@0.2.12');
    // `network` does not provide wasi:http: it links deny-all (WASI present, zero grants)
    expect(report.unsatisfiedImports).toEqual([]);
  });

  it('reports an unsigned package, an untrusted signer and an archive', async () => {
    const dir = writePackage(join(tmp.dir, 'q'), toml([]), { 'probe.wasm': fixture('tiny') });
    expect((await inspectPackage(dir)).signature).toEqual({ status: 'unsigned' });
    const signed = signPackage(await readPackageDir(dir), generateSigningKey().privateKey).package;
    const fromArchive = await inspectPackage(await packPackage(signed), {
      trustedKeys: [generateSigningKey().publicKey],
    });
    expect(fromArchive.signature.status).toBe('untrusted-key');
    expect(fromArchive.capabilities).toEqual([]);
    expect(fromArchive.filesystem).toEqual([]);
  });

  it('shows the effective rights per fs entry, what each is nested in, and what is on this host', async () => {
    const repo = join(tmp.dir, 'repo');
    mkdirSync(join(repo, 'dist'), { recursive: true });
    writeFileSync(join(repo, '.env'), 'T=1');
    const caps = [`fs:rw:${repo}/dist`, `fs:ro:${repo}`, `fs:none:${repo}/.env`, `fs:ro:${repo}/gone`];
    const dir = writePackage(join(tmp.dir, 'r'), toml(caps), { 'probe.wasm': fixture('tiny') });
    expect((await inspectPackage(dir)).filesystem).toEqual([
      { path: repo, access: 'ro', onHost: 'dir' },
      { path: `${repo}/.env`, access: 'none', within: `fs:ro:${repo}`, onHost: 'file' },
      { path: `${repo}/dist`, access: 'rw', within: `fs:ro:${repo}`, onHost: 'dir' },
      { path: `${repo}/gone`, access: 'ro', within: `fs:ro:${repo}`, onHost: 'missing' },
    ]);
  });
});
