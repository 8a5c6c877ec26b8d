import { execFileSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Code runs in worker threads started from dist/code-worker.js; tests import the package from src,
 * so build that one entry first (no type declarations, no clean).
 */
export default function setup(): void {
  const tsup = join(pkgDir, '..', '..', 'node_modules', '.bin', 'tsup');
  execFileSync(tsup, ['src/code/code-worker-entry.ts', '--no-config', '--format', 'esm', '--target', 'node20', '--out-dir', 'dist', '--silent'], { cwd: pkgDir, stdio: 'inherit' });
  renameSync(join(pkgDir, 'dist', 'code-worker-entry.js'), join(pkgDir, 'dist', 'code-worker.js'));
}
