// Build the WAT fixture, package it, sign it, load it in a worker and call it.
//   pnpm --filter @trust/wasm-host build && pnpm --filter @trust/wasm-host build:fixtures
//   node packages/wasm-host/examples/quickstart.mjs
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPluginHost, generateSigningKey, inspectPackage, readPackageDir, signPackage } from '@trust/wasm-host';

const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'wasm-host-example-'));
try {
  // 1. a package: package.toml + the component (the tiny fixture built from fixtures/tiny.wat)
  const pkgDir = join(work, 'tiny');
  mkdirSync(pkgDir);
  writeFileSync(join(pkgDir, 'tiny.wasm'), readFileSync(join(here, '..', '.fixtures', 'tiny.wasm')));
  writeFileSync(
    join(pkgDir, 'package.toml'),
    [
      '[package]',
      'name = "tiny"',
      'version = "1.0.0"',
      '',
      '[wasm]',
      'component = "tiny.wasm"',
      'capabilities = ["env:GREETING"]',
      '',
    ].join('\n'),
  );

  // 2. sign it: the signature covers the SHA-256 of every file, including package.toml
  const { privateKey, publicKey } = generateSigningKey();
  const signed = signPackage(await readPackageDir(pkgDir), privateKey);
  writeFileSync(join(pkgDir, 'package.sig'), signed.signature);

  // 3. inspect before trusting it
  const report = await inspectPackage(pkgDir, { trustedKeys: [publicKey] });
  for (const c of report.capabilities) console.log(`capability ${c.capability}: ${c.risk}`);
  console.log(`signature: ${report.signature.status}, component ${report.component.digest.slice(0, 12)}…`);

  // 4. load (verified bytes, worker thread, deny-all WASI plus the grants) and call
  const host = createPluginHost({
    trustedKeys: [publicKey],
    cacheDir: join(work, 'cache'),
    env: { GREETING: 'hi', SECRET: 'not visible' },
  });
  const plugin = await host.load(pkgDir);
  console.log('add(2, 3) =', await plugin.call('add', 2, 3));
  console.log('echo =', await plugin.call('echo', 'hello'));
  console.log('env vars the guest sees:', await plugin.call('env-count'));
  await host.close();
} finally {
  rmSync(work, { recursive: true, force: true });
}
