import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// @trust/wasm-host ships examples/tiny/tiny.wasm so that its README quick start runs from npm. It
// must stay the component that fixtures/tiny.wat assembles to (the build is byte-for-byte stable).
const wasmHost = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'wasm-host');

describe('the wasm-host example component', () => {
  it('is what build:fixtures assembles from fixtures/tiny.wat', () => {
    execFileSync(process.execPath, [join(wasmHost, 'scripts', 'build-fixtures.mjs'), '--only', 'tiny'], {
      cwd: wasmHost,
      stdio: 'pipe',
    });
    const built = readFileSync(join(wasmHost, '.fixtures', 'tiny.wasm'));
    const shipped = readFileSync(join(wasmHost, 'examples', 'tiny', 'tiny.wasm'));
    expect(shipped.equals(built), 'copy .fixtures/tiny.wasm to examples/tiny/tiny.wasm').toBe(true);
  }, 60_000);
});
