/**
 * Packs the publishable workspace packages and installs the tarballs with npm into a fresh project
 * outside the workspace, the way a user of the registry gets them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { PackedManifest } from './manifest-checks.js';

export interface PackedPackage {
  dir: string;
  tarball: string;
  manifest: PackedManifest;
  /** The README as packed. */
  readme: string;
  /** Every packed file (paths relative to the package root) with its text. */
  files: Map<string, string>;
}

/** The workspace packages that are not private, in directory order. */
export function publishableDirs(root: string): string[] {
  return readdirSync(join(root, 'packages'))
    .map((d) => join(root, 'packages', d))
    .filter(
      (d) => existsSync(join(d, 'package.json')) && !JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')).private,
    );
}

/** `pnpm pack` of one package (pnpm rewrites workspace: ranges), unpacked for inspection. */
export function packPackage(dir: string, dest: string): PackedPackage {
  const out = execFileSync('pnpm', ['pack', '--pack-destination', dest, '--json'], { cwd: dir, encoding: 'utf8' });
  const tarball = (JSON.parse(out.slice(out.indexOf('{'))) as { filename: string }).filename;
  const path = tarball.startsWith('/') ? tarball : join(dest, tarball);
  const unpacked = mkdtempSync(join(dest, 'unpacked-'));
  execFileSync('tar', ['xzf', path, '-C', unpacked]);
  const root = join(unpacked, 'package');
  const files = new Map<string, string>();
  for (const f of walk(root)) files.set(relative(root, f), readFileSync(f, 'utf8'));
  return {
    dir,
    tarball: path,
    manifest: JSON.parse(files.get('package.json')!) as PackedManifest,
    readme: files.get('README.md') ?? '',
    files,
  };
}

export interface ConsumerProject {
  dir: string;
  /** Seconds `npm install` took. */
  installSeconds: number;
  /** Bytes of the project's node_modules (apparent size, like `du -sb`). */
  nodeModulesBytes: number;
}

/**
 * A fresh npm project in the system temp dir with the tarballs installed (their dependencies from
 * the registry). `cacheDir` is npm's cache, kept between runs so that only the first one downloads.
 */
export function installConsumerProject(tarballs: string[], cacheDir: string): ConsumerProject {
  const dir = mkdtempSync(join(tmpdir(), 'trust-consumer-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  );
  const start = process.hrtime.bigint();
  npmInstall(dir, tarballs, cacheDir);
  const installSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  const du = execFileSync('du', ['-sb', join(dir, 'node_modules')], { encoding: 'utf8' });
  return { dir, installSeconds, nodeModulesBytes: Number(du.split('\t')[0]) };
}

/** Adds exact-version dev tools (TypeScript, @types/node, …) to the project. */
export function addDevDependencies(dir: string, deps: Record<string, string>, cacheDir: string): void {
  npmInstall(dir, ['--save-dev', '--save-exact', ...Object.entries(deps).map(([n, v]) => `${n}@${v}`)], cacheDir);
}

function npmInstall(dir: string, specs: string[], cacheDir: string): void {
  mkdirSync(cacheDir, { recursive: true });
  // node-gyp compiles better-sqlite3 against the headers of the Node that runs this test.
  const prefix = dirname(dirname(process.execPath));
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_cache: cacheDir, npm_config_update_notifier: 'false' };
  if (existsSync(join(prefix, 'include', 'node', 'node.h'))) env.npm_config_nodedir = prefix;
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], {
    cwd: dir,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm install in ${dir} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}
