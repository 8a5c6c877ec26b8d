import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCapabilities } from '@trust/core';
import {
  checkImports,
  formatKeyFile,
  generateSigningKey,
  inspectPackage,
  packPackage,
  readPackageDir,
  signPackage,
} from '@trust/wasm-host';
import { sampleComponent, sampleManifest } from '../demo/sample-plugin.js';
import { readStudioPlugins, toReport } from './studio-plugins.js';

// Real packages on disk, inspected by the package's own code: a signed folder, the same package
// packed as .tpkg and signed by an untrusted key, and a file that is not a package at all.
const dir = mkdtempSync(join(tmpdir(), 'studio-plugins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function writeSigned(name: string, key: ReturnType<typeof generateSigningKey>['privateKey']): Promise<string> {
  const pkg = join(dir, 'src', name);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.toml'), sampleManifest(name));
  writeFileSync(join(pkg, 'plugin.wasm'), sampleComponent());
  const signed = signPackage(await readPackageDir(pkg), key);
  writeFileSync(join(pkg, 'package.sig'), signed.signature);
  return pkg;
}

describe('readStudioPlugins', () => {
  it('reports digest, interface hash, exports, signer and trust, and a broken package with its reason', async () => {
    const trusted = generateSigningKey();
    const stranger = generateSigningKey();
    const plugins = join(dir, 'plugins');
    mkdirSync(plugins, { recursive: true });
    const hello = await writeSigned('hello', trusted.privateKey);
    const { cpSync } = await import('node:fs');
    cpSync(hello, join(plugins, 'hello'), { recursive: true });
    const other = await writeSigned('other', stranger.privateKey);
    writeFileSync(
      join(plugins, 'other.tpkg'),
      await packPackage(signPackage(await readPackageDir(other), stranger.privateKey).package),
    );
    writeFileSync(join(plugins, 'broken.tpkg'), 'not an archive');

    const reports = await readStudioPlugins(plugins, [formatKeyFile(trusted.publicKey)]);
    expect(reports.map((r) => r.source)).toEqual(['broken.tpkg', 'hello', 'other.tpkg']);
    const [broken, ok, untrusted] = reports;
    expect(ok).toMatchObject({ name: 'hello', signature: { status: 'valid', signer: trusted.publicKey.keyId } });
    expect(ok!.component!.digest).toBe(createHash('sha256').update(sampleComponent()).digest('hex'));
    expect(ok!.component!.interfaceHash).toMatch(/^[0-9a-f]{16,}$/);
    expect(ok!.exports!.join(' ')).toContain('add');
    expect(ok!.imports).toEqual([]);
    expect(untrusted!.signature).toMatchObject({ status: 'untrusted-key', reason: expect.any(String) });
    expect(broken).toMatchObject({
      name: 'broken.tpkg',
      signature: { status: 'invalid', reason: expect.stringContaining('cannot be read') },
    });
  });

  it('marks each import a load would refuse, with the reason and the fix', async () => {
    const pkg = await writeSigned('net', generateSigningKey().privateKey);
    const real = await inspectPackage(pkg);
    // wasi:sockets without a grant links deny-all (WASI present, zero grants): not refused
    const imports = ['wasi:io/streams@0.2.12', 'acme:custom/api@1.0.0', 'wasi:sockets/tcp@0.2.12'];
    const checks = checkImports(imports, parseCapabilities([]), true);
    const report = toReport('net', { ...real, imports, unsatisfiedImports: checks.filter((c) => !c.satisfied) });
    expect(report.imports).toEqual([
      { name: 'wasi:io/streams@0.2.12', granted: true },
      {
        name: 'acme:custom/api@1.0.0',
        granted: false,
        refused: expect.stringContaining('nothing on this host provides'),
        hint: expect.any(String),
      },
      { name: 'wasi:sockets/tcp@0.2.12', granted: true },
    ]);
  });
});
