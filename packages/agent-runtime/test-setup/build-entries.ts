import { execFileSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');

function buildEntry(source: string): void {
  const tsup = join(pkgDir, '..', '..', 'node_modules', '.bin', 'tsup');
  execFileSync(
    tsup,
    [source, '--no-config', '--format', 'esm', '--target', 'node20', '--out-dir', 'dist', '--silent'],
    { cwd: pkgDir, stdio: 'inherit' },
  );
}

/**
 * Agent SQL runs in a separate process started from dist/sql-host-entry.js, and agent code in
 * worker threads started from dist/code-worker.js. Tests import the package from src, so these
 * two files are built from the current source first (no type declarations, no clean).
 */
export default function setup(): void {
  buildEntry('src/sql/sql-host-entry.ts');
  buildEntry('src/code/code-worker-entry.ts');
  renameSync(join(pkgDir, 'dist', 'code-worker-entry.js'), join(pkgDir, 'dist', 'code-worker.js'));
}
