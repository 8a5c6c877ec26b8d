import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TrustError } from '@trust/core';

/** Where the launcher's main source ships inside the package (`native/launcher.c`; its other `.c` and `.h` files sit next to it). */
export function launcherSourcePath(): string {
  return fileURLToPath(new URL('../native/launcher.c', import.meta.url));
}

/** The launcher's sources: `main` and every other `.c`/`.h` file in its directory, in a stable order. */
function launcherSources(main: string): { files: string[]; text: string } {
  const dir = dirname(main);
  const others = readdirSync(dir)
    .filter((f) => /\.[ch]$/.test(f) && join(dir, f) !== main)
    .sort()
    .map((f) => join(dir, f));
  const files = [main, ...others];
  return { files, text: files.map((f) => `${f.slice(dir.length + 1)}\0${readFileSync(f, 'utf8')}\0`).join('') };
}

/** A compiled launcher and the SHA-256 it was checked against. */
export interface Launcher {
  readonly path: string;
  readonly sha256: string;
}

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 60_000 }, (err, _out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve()));
  });
}

/**
 * Returns the launcher binary, compiling `native/` (launcher.c and the files next to it) with the
 * system C compiler on first use (linked statically where the C library allows it, else dynamically). Builds land in
 * `<cacheDir>/<first 16 hex of the sources' hash>/`, next to a `.sha256` file recorded at build
 * time; every load re-hashes the binary and refuses a mismatch (`SANDBOX_LAUNCHER_TAMPERED`).
 * On the host side the launcher runs with this process's own rights: it joins cgroups, closes
 * inherited descriptors, holds root locks, pins protected paths in a user namespace of its own
 * and supervises bubblewrap; inside the sandbox (bridges, limits) it has the run's rights only.
 *
 * @example
 * const l = await ensureLauncher({ cacheDir: '/var/cache/trust' });
 */
export async function ensureLauncher(options: { cacheDir?: string; cc?: string; source?: string } = {}): Promise<Launcher> {
  const source = options.source ?? launcherSourcePath();
  let sources: { files: string[]; text: string };
  try {
    sources = launcherSources(source);
  } catch (err) {
    throw new TrustError('SANDBOX_UNAVAILABLE', `the launcher source ${source} is missing`, { cause: err, hint: 'reinstall @trust/os-sandbox' });
  }
  const cacheDir = options.cacheDir ?? fileURLToPath(new URL('../.native/', import.meta.url));
  const dir = join(cacheDir, sha256(sources.text).slice(0, 16));
  const bin = join(dir, 'trust-sandbox-launcher');
  const sumFile = `${bin}.sha256`;
  if (!existsSync(bin) || !existsSync(sumFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const tmp = `${bin}.${process.pid}.${Date.now()}.tmp`;
    const cc = options.cc ?? 'cc';
    try {
      // Static when the C library allows it: no dynamic loader on every spawn (about 0.3 ms).
      const units = sources.files.filter((f) => f.endsWith('.c'));
      await run(cc, ['-O2', '-Wall', '-static', '-o', tmp, ...units]).catch(() => run(cc, ['-O2', '-Wall', '-o', tmp, ...units]));
    } catch (err) {
      throw new TrustError('SANDBOX_UNAVAILABLE', 'could not compile the sandbox launcher with the system C compiler', {
        cause: err,
        hint: 'install a C compiler (Debian: apt-get install gcc libc6-dev), or pass launcherPath to createSandbox',
      });
    }
    writeFileSync(`${tmp}.sha256`, `${sha256(readFileSync(tmp))}\n`);
    renameSync(`${tmp}.sha256`, sumFile);
    renameSync(tmp, bin);
  }
  return verifyLauncher(bin, readFileSync(sumFile, 'utf8').trim());
}

/**
 * Re-hashes a launcher binary and refuses it when the hash differs from `expected`.
 *
 * @example
 * verifyLauncher('/opt/trust/trust-sandbox-launcher', knownSha256);
 */
export function verifyLauncher(path: string, expected: string): Launcher {
  const actual = sha256(readFileSync(path));
  if (actual !== expected) {
    throw new TrustError('SANDBOX_LAUNCHER_TAMPERED', `the sandbox launcher ${path} does not match its recorded hash`, {
      hint: `delete ${dirname(path)} so it is rebuilt from source`,
    });
  }
  return Object.freeze({ path, sha256: actual });
}
