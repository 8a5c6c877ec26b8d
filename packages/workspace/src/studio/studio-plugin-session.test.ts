import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '@trust/core';
import { formatKeyFile, generateSigningKey, packPackage, readPackageDir, signPackage } from '@trust/wasm-host';
import { sampleComponent, sampleManifest } from '../demo/sample-plugin.js';
import { createStudioPluginSession } from './studio-plugin-session.js';
import { MAX_RESULT_JSON_BYTES, toJsonResult } from './studio-plugin-result.js';
import { callableNames } from './studio-plugin-exports.js';

// Real signed packages on disk; these cases are refused before any plugin is instantiated.
const dir = mkdtempSync(join(tmpdir(), 'studio-plugin-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = generateSigningKey();

async function signedPackage(name: string, capabilities: string): Promise<string> {
  const pkg = join(dir, 'src', name);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.toml'),
    sampleManifest(name).replace('capabilities = []', `capabilities = ${capabilities}`),
  );
  writeFileSync(join(pkg, 'plugin.wasm'), sampleComponent());
  writeFileSync(join(pkg, 'package.sig'), signPackage(await readPackageDir(pkg), key.privateKey).signature);
  return pkg;
}

async function session(pluginsDir: string) {
  return createStudioPluginSession({
    pluginsDir,
    trustedKeyTexts: [formatKeyFile(key.publicKey)],
    audit: createMemoryAuditSink(),
  });
}

describe('studio plugin session: refusals before a load', () => {
  it('refuses a grant wider than the manifest, naming it (never clipped to the manifest)', async () => {
    const plugins = join(dir, 'p1');
    mkdirSync(plugins, { recursive: true });
    const { cpSync } = await import('node:fs');
    cpSync(await signedPackage('narrow', '["env:GREETING", "fs:ro:/srv/data"]'), join(plugins, 'narrow'), {
      recursive: true,
    });
    const s = await session(plugins);
    await expect(s.pluginLoad({ source: 'narrow', grants: ['env:GREETING', 'env:SECRET'] })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_WIDER',
    );
    await expect(s.pluginLoad({ source: 'narrow', grants: ['fs:rw:/srv/data'] })).rejects.toThrow(/fs:rw:\/srv\/data/);
    await expect(s.pluginLoad({ source: 'narrow', grants: ['fs:ro:/srv'] })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_WIDER',
    );
    await expect(s.pluginLoad({ source: 'narrow', grants: ['http'] })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_WIDER',
    );
    await expect(s.pluginLoad({ source: 'narrow', grants: ['env'] })).rejects.toThrowTrustError('CAPABILITY_INVALID');
    expect(s.pluginsLoaded()).toEqual([]);
    await s.close();
  });

  it('loads only entries of the plugins folder itself', async () => {
    const plugins = join(dir, 'p2');
    mkdirSync(plugins, { recursive: true });
    writeFileSync(join(plugins, 'notes.txt'), 'not a package');
    const s = await session(plugins);
    for (const source of ['..', 'notes.txt', 'missing', '../src/narrow'])
      await expect(s.pluginLoad({ source, grants: [] })).rejects.toThrowTrustError('STUDIO_PLUGIN_NOT_FOUND');
    await expect(s.pluginCall('nope-1', 'add', [])).rejects.toThrowTrustError('STUDIO_PLUGIN_NOT_LOADED');
    await expect(s.pluginUnload('nope-1')).rejects.toThrowTrustError('STUDIO_PLUGIN_NOT_LOADED');
    await s.close();
  });
});

describe('studio plugin session: upload', () => {
  it(
    'unpacks a signed .tpkg with the package code and reports it; ' +
      'refuses a corrupt one and a second of the same name',
    async () => {
      const plugins = join(dir, 'p3');
      const bytes = await packPackage(await readPackageDir(await signedPackage('uploaded', '[]')));
      const s = await session(plugins);
      const report = await s.pluginUpload({ fileName: 'uploaded.tpkg', bytes });
      expect(report).toMatchObject({ name: 'uploaded', signature: { status: 'valid', signer: key.publicKey.keyId } });
      expect(readFileSync(join(plugins, 'uploaded', 'plugin.wasm'))).toEqual(Buffer.from(sampleComponent()));
      await expect(s.pluginUpload({ fileName: 'uploaded.tpkg', bytes })).rejects.toThrowTrustError(
        'STUDIO_PLUGIN_EXISTS',
      );
      const cut = bytes.slice(0, Math.floor(bytes.length / 2));
      await expect(s.pluginUpload({ fileName: 'cut.tpkg', bytes: cut })).rejects.toThrowTrustError(
        'WASM_PACKAGE_MALFORMED',
      );
      await expect(
        s.pluginUpload({ fileName: 'x.tpkg', bytes: new TextEncoder().encode('<img src=x onerror=alert(1)>') }),
      ).rejects.toThrowTrustError('WASM_PACKAGE_MALFORMED');
      await s.close();
    },
  );

  it('refuses a package past the upload caps that the package defaults would still take', async () => {
    const plugins = join(dir, 'p5');
    const many = await signedPackage('many', '[]');
    // 300 files of random bytes: under the default 10 000 entries and ratio.
    for (let i = 0; i < 300; i++) writeFileSync(join(many, `f${i}.bin`), randomBytes(4096));
    // 40 MiB, 3 % random bytes among zeros: gzip shrinks it some 10-20 times, under the default
    // ratio (50) and size (256 MiB), and under the 4 MiB the upload route accepts.
    const big = await signedPackage('big', '[]');
    const filler = randomBytes(40 * 1024 * 1024);
    for (let i = 0; i < filler.length; i++) if (filler[i]! >= 8) filler[i] = 0;
    writeFileSync(join(big, 'filler.bin'), filler);
    const s = await session(plugins);
    for (const pkg of [many, big]) {
      const bytes = await packPackage(await readPackageDir(pkg));
      expect(bytes.length).toBeLessThan(4 * 1024 * 1024);
      await expect(s.pluginUpload({ fileName: 'x.tpkg', bytes })).rejects.toThrowTrustError('WASM_PACKAGE_TOO_LARGE');
    }
    expect(existsSync(plugins)).toBe(false);
    await s.close();
  });

  it('refuses a package whose files no longer match its signature, and leaves nothing behind', async () => {
    const plugins = join(dir, 'p4');
    const pkg = await signedPackage('tampered', '[]');
    writeFileSync(join(pkg, 'package.toml'), readFileSync(join(pkg, 'package.toml'), 'utf8').replace('0.1.0', '0.1.1'));
    const s = await session(plugins);
    await expect(
      s.pluginUpload({ fileName: 't.tpkg', bytes: await packPackage(await readPackageDir(pkg)) }),
    ).rejects.toThrowTrustError('WASM_SIGNATURE_INVALID');
    expect(existsSync(join(plugins, 'tampered'))).toBe(false);
    await s.close();
  });
});

describe('toJsonResult', () => {
  it.each([
    [5, 5],
    [12345678901234567890n, '12345678901234567890'],
    [new Uint8Array([1, 2]), [1, 2]],
    [undefined, null],
    ['<script>', '<script>'],
    [{ a: [1n] }, { a: ['1'] }],
  ])('%o -> %o', (input, expected) => {
    expect(toJsonResult(input)).toEqual(expected);
  });

  it('cuts a result larger than the cap to a marked preview', () => {
    const r = toJsonResult('x'.repeat(MAX_RESULT_JSON_BYTES + 10)) as { truncated: boolean; preview: string };
    expect(r.truncated).toBe(true);
    expect(r.preview.length).toBeLessThan(MAX_RESULT_JSON_BYTES);
  });
});

describe('callableNames', () => {
  it('lists exactly the exported functions, by WIT name and camelCase, and interface functions as iface.fn', () => {
    const names = callableNames({
      add: 'add: func(a: u32, b: u32) -> u32',
      'env-count': 'env-count: func() -> u32',
      'acme:tools/text-ops@1.0.0#to-upper': 'to-upper: func(s: string) -> string',
      point: 'record point { x: u32 }',
    });
    expect([...names].sort()).toEqual(
      [
        'add',
        'env-count',
        'envCount',
        'text-ops.to-upper',
        'text-ops.toUpper',
        'textOps.to-upper',
        'textOps.toUpper',
      ].sort(),
    );
    for (const n of ['constructor', 'point', 'add.call', '__proto__', 'toString']) expect(names.has(n)).toBe(false);
  });
});
