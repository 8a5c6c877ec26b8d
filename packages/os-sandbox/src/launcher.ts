import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TrustError } from '@trust/core';
import { z } from 'zod';
import type { SandboxPolicy } from './policy.js';
import { checkSandboxOptions } from './sandbox-options.js';

/**
 * Where the launcher's main source ships inside the package (`native/launcher.c`; its other `.c` and `.h` files sit
 * next to it).
 */
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
  /**
   * The directory every run hides (an empty read-only directory over it, even inside a grant) and
   * no grant may lie in: the launcher cache, or the directory of a prebuilt launcher.
   */
  readonly hideDir: string;
}

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 60_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(),
    );
  });
}

/**
 * The per-user launcher cache: `$TRUST_CACHE_DIR/launcher`, else `$XDG_CACHE_HOME/trust/launcher`,
 * else `~/.cache/trust/launcher`. Never inside the installed package (which may be read-only,
 * shared between projects, or inside a directory a sandbox may write).
 *
 * @example
 * launcherCacheDir({ XDG_CACHE_HOME: '/home/me/.cache' }); // '/home/me/.cache/trust/launcher'
 */
export function launcherCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const own = env.TRUST_CACHE_DIR;
  if (own && isAbsolute(own)) return join(own, 'launcher');
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir(), '.cache');
  return join(base, 'trust', 'launcher');
}

const unsafe = (path: string, why: string): TrustError =>
  new TrustError('SANDBOX_LAUNCHER_CACHE_UNSAFE', `the launcher cache ${path} ${why}`, {
    hint:
      `remove ${path} (it is rebuilt, private to this user), or pass ` +
      `launcherCacheDir / TRUST_CACHE_DIR naming a directory only this user owns`,
  });

/**
 * Creates `dir` (mode 0700) or checks it: a real directory (no symlink), owned by this user, writable by nobody else.
 */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory()) throw unsafe(dir, 'is not a directory (a symlink?)');
  if (uid !== undefined && st.uid !== uid) throw unsafe(dir, `is owned by uid ${st.uid}, not by this user (${uid})`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** Options of `ensureLauncher`. */
export interface EnsureLauncherOptions {
  /** Where compiled launchers are cached; default the per-user cache (`launcherCacheDir`). */
  readonly cacheDir?: string;
  /** The C compiler; default `cc`. */
  readonly cc?: string;
  /** The launcher's main source file; default the one shipped with this package. */
  readonly source?: string;
  /** Where the per-user cache's location is read from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How the cached binary is trusted: `manifest` (default) or `rebuild`. */
  readonly verify?: 'manifest' | 'rebuild';
}

const ensureLauncherOptionsSchema = z
  .object({
    cacheDir: z.string().min(1).optional().describe('where compiled launchers are cached, e.g. "/var/cache/trust"'),
    cc: z.string().min(1).optional().describe('the C compiler, e.g. "cc"'),
    source: z.string().min(1).optional().describe('the launcher source, e.g. launcherSourcePath()'),
    env: z
      .custom<object>((v) => typeof v === 'object' && v !== null, 'expected an object of strings')
      .optional()
      .describe('where the cache location is read from, e.g. process.env'),
    verify: z.enum(['manifest', 'rebuild']).optional().describe('how the cached binary is trusted, e.g. "manifest"'),
  })
  .strict();

/**
 * Returns the launcher binary, compiling `native/` (launcher.c and the files next to it) with the
 * system C compiler on first use (linked statically where the C library allows it, else
 * dynamically) into the per-user cache (`launcherCacheDir()`, or `cacheDir`): a 0700 directory
 * this user owns (else `SANDBOX_LAUNCHER_CACHE_UNSAFE`), `<first 16 hex of the sources' hash>/`.
 * The binary's SHA-256, recorded when it was built, is kept in the cache's manifest
 * (`<hash>.json`, not beside the binary) and checked on every load (`SANDBOX_LAUNCHER_TAMPERED`);
 * what keeps a sandboxed run from rewriting both is that every run hides the cache (see
 * `Launcher.hideDir`) and no grant may lie inside it. With `verify: 'rebuild'` the sources are
 * compiled again (about 1.7 s here) and the hash this process computed from that build is the one
 * checked: a cache whose binary and manifest were both replaced is rebuilt, never run (a host
 * that starts many sandboxes can do this once and pass the result as `launcher`).
 * On the host side the launcher runs with this process's own rights: it joins cgroups, closes
 * inherited descriptors, holds root locks, pins protected paths in a user namespace of its own
 * and supervises bubblewrap; inside the sandbox (bridges, limits) it has the run's rights only.
 *
 * @example
 * const l = await ensureLauncher({ cacheDir: '/var/cache/trust' });
 */
export async function ensureLauncher(options: EnsureLauncherOptions = {}): Promise<Launcher> {
  checkSandboxOptions('ensureLauncher', ensureLauncherOptionsSchema, options);
  const source = options.source ?? launcherSourcePath();
  let sources: { files: string[]; text: string };
  try {
    sources = launcherSources(source);
  } catch (err) {
    throw new TrustError('SANDBOX_UNAVAILABLE', `the launcher source ${source} is missing`, {
      cause: err,
      hint: 'reinstall @trust/os-sandbox',
    });
  }
  const cacheDir = options.cacheDir ?? launcherCacheDir(options.env);
  ensurePrivateDir(cacheDir);
  const key = sha256(sources.text).slice(0, 16);
  const dir = join(cacheDir, key);
  const bin = join(dir, 'trust-sandbox-launcher');
  const manifest = join(cacheDir, `${key}.json`);
  ensurePrivateDir(dir);
  const compile = async (): Promise<{ tmp: string; hash: string }> => {
    const tmp = `${bin}.${process.pid}.${Date.now()}.tmp`;
    const cc = options.cc ?? 'cc';
    try {
      // Static when the C library allows it: no dynamic loader on every spawn (about 0.3 ms).
      const units = sources.files.filter((f) => f.endsWith('.c'));
      await run(cc, ['-O2', '-Wall', '-static', '-o', tmp, ...units]).catch(() =>
        run(cc, ['-O2', '-Wall', '-o', tmp, ...units]),
      );
    } catch (err) {
      throw new TrustError('SANDBOX_UNAVAILABLE', 'could not compile the sandbox launcher with the system C compiler', {
        cause: err,
        hint: 'install a C compiler (Debian: apt-get install gcc libc6-dev), or pass launcherPath to createSandbox',
      });
    }
    chmodSync(tmp, 0o700);
    return { tmp, hash: sha256(readFileSync(tmp)) };
  };
  const install = ({ tmp, hash }: { tmp: string; hash: string }): void => {
    writeFileSync(
      `${manifest}.${process.pid}.tmp`,
      `${JSON.stringify({ v: 1, sources: sha256(sources.text), sha256: hash })}\n`,
      { mode: 0o600 },
    );
    renameSync(tmp, bin);
    renameSync(`${manifest}.${process.pid}.tmp`, manifest);
  };
  if (options.verify === 'rebuild') {
    // The hash comes from what this process compiled just now, not from the cache: whatever the
    // cache holds that differs is replaced by the fresh build.
    const fresh = await compile();
    let cached: string | undefined;
    try {
      cached = sha256(readFileSync(bin));
    } catch {
      cached = undefined;
    }
    if (cached === fresh.hash && existsSync(manifest)) rmSync(fresh.tmp, { force: true });
    else install(fresh);
    return verifyLauncherIn(bin, fresh.hash, cacheDir);
  }
  if (!existsSync(bin) || !existsSync(manifest)) install(await compile());
  let expected: unknown;
  try {
    expected = (JSON.parse(readFileSync(manifest, 'utf8')) as { v?: unknown; sha256?: unknown }).sha256;
  } catch {
    expected = undefined;
  }
  if (typeof expected !== 'string') throw unsafe(manifest, 'is not a launcher manifest');
  return verifyLauncherIn(bin, expected, cacheDir);
}

/**
 * Re-hashes a launcher binary and refuses it when the hash differs from `expected`, or when it is
 * not a plain file of this user (or root) that nobody else may write (`SANDBOX_LAUNCHER_TAMPERED`).
 *
 * @example
 * verifyLauncher('/opt/trust/trust-sandbox-launcher', knownSha256);
 */
export function verifyLauncher(path: string, expected: string): Launcher {
  return verifyLauncherIn(path, expected, dirname(path));
}

function verifyLauncherIn(path: string, expected: string, hideDir: string): Launcher {
  const tampered = (why: string): TrustError =>
    new TrustError('SANDBOX_LAUNCHER_TAMPERED', `the sandbox launcher ${path} ${why}`, {
      hint: `delete ${dirname(path)} so it is rebuilt from source`,
    });
  const st = lstatSync(path);
  const uid = process.getuid?.();
  if (!st.isFile()) throw tampered('is not a regular file');
  if (st.nlink !== 1) throw tampered('has other hard links');
  if ((st.mode & 0o022) !== 0 || (uid !== undefined && st.uid !== uid && st.uid !== 0))
    throw tampered('may be written by another user');
  const actual = sha256(readFileSync(path));
  if (actual !== expected) throw tampered('does not match its recorded hash');
  return Object.freeze({ path, sha256: actual, hideDir });
}

/**
 * The policy a sandbox's runs are planned with, given the launcher's directory `dir`: a writable
 * grant inside it (or equal to it) is refused (`SANDBOX_POLICY_INVALID`); a writable grant that
 * contains it gets it hidden (an empty read-only directory over it, like `hiddenPaths`). So no run
 * can write the binary, or its recorded hash, that this process runs next. Read-only grants are
 * left alone: reading the launcher tells a run nothing it could not compile itself.
 *
 * @example
 * const policy = parseSandboxPolicy({ v: 1, capabilities: ['fs:rw:/home/me'] });
 * hideLauncher(policy, '/home/me/.cache/trust/launcher').hiddenPaths;
 * // ['/home/me/.cache/trust/launcher']
 */
export function hideLauncher(policy: SandboxPolicy, dir: string): SandboxPolicy {
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    /* judged by the path given */
  }
  const within = (parent: string, child: string): boolean =>
    child === parent || child.startsWith(parent === '/' ? '/' : `${parent}/`);
  const rw = policy.capabilities.fsGrants.filter((g) => g.mode === 'rw');
  const inside = rw.find((g) => within(real, g.path) || within(dir, g.path));
  if (inside) {
    throw new TrustError(
      'SANDBOX_POLICY_INVALID',
      `the writable grant ${inside.path} lies inside the sandbox launcher's directory ${real}`,
      {
        hint: 'grant a directory outside the launcher cache, or move the cache (launcherCacheDir, TRUST_CACHE_DIR)',
      },
    );
  }
  if (!rw.some((g) => within(g.path, real))) return policy;
  return Object.freeze({ ...policy, hiddenPaths: Object.freeze([...policy.hiddenPaths, real]) });
}
