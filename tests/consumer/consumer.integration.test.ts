import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addDevDependencies,
  installConsumerProject,
  packPackage,
  publishableDirs,
  type ConsumerProject,
  type PackedPackage,
} from './consumer-project.js';
import { checkImports, checkManifest } from './manifest-checks.js';
import { extractExamples } from './readme-examples.js';
import { runExample, typeCheck, type NamedExample } from './run-examples.js';

// Packs every publishable package, installs the tarballs with npm into a fresh project outside the
// workspace (third-party dependencies from the registry, as a user gets them) and uses them there.
// Requires a built workspace (`pnpm test` builds first) and npm with access to its registry.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const packs: PackedPackage[] = [];
let project: ConsumerProject;
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'trust-pack-'));
  for (const dir of publishableDirs(root)) packs.push(packPackage(dir, work));
  project = installConsumerProject(
    packs.map((p) => p.tarball),
    join(root, '.cache', 'npm'),
  );
  process.stdout.write(
    `consumer install: ${packs.length} packages, node_modules ${(project.nodeModulesBytes / 1e6).toFixed(1)} MB ` +
      `(${project.nodeModulesBytes} bytes), npm install ${project.installSeconds.toFixed(0)} s on Node ` +
      `${process.version}\n`,
  );
  // Tools for the checks below, installed after measuring: they are not part of what a user gets.
  const dev = {
    typescript: rootManifest.devDependencies.typescript!,
    '@types/node': rootManifest.devDependencies['@types/node']!,
    vitest: rootManifest.devDependencies.vitest!,
  };
  addDevDependencies(project.dir, dev, join(root, '.cache', 'npm'));
}, 1_200_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (project) rmSync(project.dir, { recursive: true, force: true });
});

describe('packed manifests', () => {
  it('packs every publishable package', () => {
    expect(packs.map((p) => p.manifest.name).sort()).toEqual([
      '@trust/agent-runtime',
      '@trust/cli',
      '@trust/core',
      '@trust/egress',
      '@trust/os-sandbox',
      '@trust/wasm-host',
      '@trust/workspace',
    ]);
  });
  it('have no workspace: range, their types/exports/bin files and the workspace engines range', () => {
    expect(
      packs.flatMap((p) =>
        checkManifest(p.manifest, new Set(p.files.keys()), rootManifest.engines.node).map(
          (x) => `${p.manifest.name}: ${x}`,
        ),
      ),
    ).toEqual([]);
  });
  it('import nothing outside the package or its declared dependencies', () => {
    expect(packs.flatMap((p) => checkImports(p.manifest, p.files).map((x) => `${p.manifest.name}: ${x}`))).toEqual([]);
  });
});

describe('in a fresh npm project', () => {
  const examples = (): NamedExample[] =>
    packs.flatMap((p) => extractExamples(p.readme).map((ex) => ({ ...ex, id: `${basename(p.dir)}-L${ex.line}` })));
  // @trust/cli is the `trust` command: its entry point runs the command and declares no API.
  const libraryEntries = (): string[] =>
    packs
      .filter((p) => p.manifest.name !== '@trust/cli')
      .flatMap((p) =>
        Object.keys(p.manifest.exports as object).map((sub) =>
          sub === '.' ? p.manifest.name : `${p.manifest.name}/${sub.slice(2)}`,
        ),
      );
  const exampleEnv = (): NodeJS.ProcessEnv => ({ ...process.env, TRUST_HOME: mkdtempSync(join(project.dir, 'home-')) });

  it('every package README has at least one marked example', () => {
    expect(packs.filter((p) => extractExamples(p.readme).length === 0).map((p) => p.manifest.name)).toEqual([]);
  });

  it('type-checks every entry point and every TypeScript example (nodenext, skipLibCheck off)', () => {
    expect(typeCheck(project.dir, libraryEntries(), examples())).toBe('');
  }, 300_000);

  it('loads every library entry point', () => {
    const entries = libraryEntries();
    const script =
      `for (const e of ${JSON.stringify(entries)}) { const m = await import(e); if ` +
      `(Object.keys(m).length === 0) throw new Error(e + ' exports nothing'); }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project.dir,
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('runs every README example as written', () => {
    const failures = examples()
      .map((ex) => runExample(project.dir, ex, exampleEnv()))
      .filter((r) => r.status !== 0)
      .map((r) => `${r.id} exited ${r.status ?? r.signal}:\n${r.output}`);
    expect(failures).toEqual([]);
  }, 900_000);

  it('runs the installed `trust --help` and `trust doctor`', () => {
    const trust = join(project.dir, 'node_modules', '.bin', 'trust');
    const help = spawnSync(trust, ['--help'], { cwd: project.dir, encoding: 'utf8', env: exampleEnv() });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage\n {2}trust <command>/m);
    expect(help.stdout).toMatch(/^ {2}studio /m);
    const doctor = spawnSync(trust, ['doctor'], { cwd: project.dir, encoding: 'utf8', env: exampleEnv() });
    expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0);
    const json = spawnSync(trust, ['doctor', '--json'], { cwd: project.dir, encoding: 'utf8', env: exampleEnv() });
    const checks = (JSON.parse(json.stdout) as { result: { checks: { id: string; status: string }[] } }).result.checks;
    // The better-sqlite3 that npm compiled in the project loads in the Node running this test.
    expect(checks.filter((c) => c.id === 'sqlite' || c.id === 'node').map((c) => `${c.id}:${c.status}`)).toEqual([
      'node:ok',
      'sqlite:ok',
    ]);
  }, 120_000);

  it('serves the built studio from the installed `trust studio --json`, then stops', async () => {
    const child = spawn(join(project.dir, 'node_modules', '.bin', 'trust'), ['studio', '--json'], {
      cwd: project.dir,
      env: exampleEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const first = await new Promise<string>((res, rej) => {
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) res(out.slice(0, out.indexOf('\n')));
        });
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('exit', (code) => rej(new Error(`trust studio exited ${code} before printing its URL: ${out}${err}`)));
      });
      const { url } = (JSON.parse(first) as { result: { url: string } }).result;
      const page = await fetch(new URL('/', url));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      const html = await page.text();
      const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
      expect(script, html).toBeDefined();
      const js = await fetch(new URL(script!, url));
      expect(js.status).toBe(200);
      expect((await js.text()).length).toBeGreaterThan(10_000);
    } finally {
      const exited = new Promise((res) => (child.exitCode !== null ? res(null) : child.once('exit', res)));
      child.kill('SIGINT');
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    }
  }, 120_000);
});
