import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Builds the fixtures in a separate process (jco's WIT reader needs preview2-shim's global
 * preopens, which must never be touched in a process that hosts plugins) and the package's
 * worker entry, because plugin workers run dist/worker-entry.js.
 */
export default function setup(): void {
  execFileSync(process.execPath, [join(pkgDir, 'scripts', 'build-fixtures.mjs')], { cwd: pkgDir, stdio: 'inherit' });
  // Only the worker entry (no type declarations, no clean): tests import the package from src.
  const tsup = join(pkgDir, '..', '..', 'node_modules', '.bin', 'tsup');
  execFileSync(
    tsup,
    ['src/worker-entry.ts', '--no-config', '--format', 'esm', '--target', 'node20', '--out-dir', 'dist', '--silent'],
    { cwd: pkgDir, stdio: 'inherit' },
  );
}
