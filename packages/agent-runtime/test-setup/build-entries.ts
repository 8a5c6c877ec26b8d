import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Agent SQL runs in a separate process started from dist/sql-host-entry.js, so tests (which
 * import the package from src) need that one file built from the current source.
 */
export default function setup(): void {
  const tsup = join(pkgDir, '..', '..', 'node_modules', '.bin', 'tsup');
  execFileSync(tsup, ['src/sql/sql-host-entry.ts', '--no-config', '--format', 'esm', '--target', 'node20', '--out-dir', 'dist', '--silent'], { cwd: pkgDir, stdio: 'inherit' });
}
