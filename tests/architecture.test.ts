// The dependency direction of ARCHITECTURE §1, enforced: packages use each other only through
// their public entry points, and nothing points back up the stack.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Which workspace packages each package may depend on at runtime (dependencies + peerDependencies). */
const ALLOWED: Record<string, readonly string[]> = {
  '@trust/core': [],
  '@trust/egress': ['@trust/core'],
  '@trust/wasm-host': ['@trust/core', '@trust/egress'],
  '@trust/os-sandbox': ['@trust/core', '@trust/egress'],
  '@trust/agent-runtime': ['@trust/core', '@trust/egress', '@trust/os-sandbox'],
  '@trust/workspace': ['@trust/core', '@trust/egress', '@trust/wasm-host', '@trust/os-sandbox', '@trust/agent-runtime'],
  '@trust/cli': [
    '@trust/core',
    '@trust/egress',
    '@trust/os-sandbox',
    '@trust/wasm-host',
    '@trust/agent-runtime',
    '@trust/workspace',
  ],
  '@trust/testing': ['@trust/core'],
};

interface Pkg {
  name: string;
  dir: string;
  json: {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    exports?: Record<string, unknown>;
    types?: string;
    bin?: Record<string, string>;
    private?: boolean;
  };
}

function packages(): Pkg[] {
  const out: Pkg[] = [];
  for (const base of ['packages', 'apps']) {
    for (const entry of readdirSync(join(root, base))) {
      const dir = join(root, base, entry);
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const json = JSON.parse(readFileSync(file, 'utf8'));
      out.push({ name: json.name, dir, json });
    }
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      if (e === 'node_modules' || e === 'dist' || e.startsWith('.')) continue;
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|tsx|mts|mjs|js)$/.test(e)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

/** Every module specifier a file names in an import, export-from, dynamic import or require. */
export function specifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => m[1]!);
}

function publicSubpaths(pkg: Pkg | undefined): Set<string> {
  const exp = pkg?.json.exports ?? { '.': {} };
  return new Set(Object.keys(exp).map((k) => (k === '.' ? '' : k.slice(1))));
}

const all = packages();
const byName = new Map(all.map((p) => [p.name, p]));
const libraries = all.filter((p) => p.name in ALLOWED);

describe('architecture', () => {
  it('knows every package of the workspace', () => {
    const unknown = all.filter((p) => !(p.name in ALLOWED) && p.name !== '@trust/studio').map((p) => p.name);
    expect(unknown, 'add new packages to ALLOWED in tests/architecture.test.ts').toEqual([]);
  });

  it('finds specifiers in every import form', () => {
    const text = [
      "import a from '@trust/core';",
      'export { b } from "@trust/egress";',
      "const c = await import('@trust/x/src/y.js');",
      "import './side.js';",
      "const d = require('../../core/src/z');",
    ].join('\n');
    expect(specifiers(text)).toEqual([
      '@trust/core',
      '@trust/egress',
      '@trust/x/src/y.js',
      './side.js',
      '../../core/src/z',
    ]);
  });

  it.each(libraries.map((p) => [p.name, p] as const))('%s declares only allowed runtime dependencies', (name, pkg) => {
    const declared = Object.keys({ ...pkg.json.dependencies, ...pkg.json.peerDependencies }).filter((d) =>
      d.startsWith('@trust/'),
    );
    const forbidden = declared.filter((d) => !ALLOWED[name]!.includes(d));
    expect(forbidden, `${name} must not depend on ${forbidden.join(', ')} (dependencies point one way)`).toEqual([]);
  });

  it.each(libraries.map((p) => [p.name, p] as const))(
    '%s imports other packages only through their public entry points',
    (name, pkg) => {
      const problems: string[] = [];
      const declared = new Set(
        Object.keys({ ...pkg.json.dependencies, ...pkg.json.peerDependencies, ...pkg.json.devDependencies }),
      );
      for (const file of sourceFiles(join(pkg.dir, 'src'))) {
        const rel = relative(root, file);
        const isTest = /\.test\.tsx?$/.test(file) || file.includes(`${join('src', 'testing')}`);
        // A fixture runs as a separate process, like a user of the package: it may use the public entry.
        const isFixture = file.includes(`${join('', 'fixtures', '')}`);
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          if (spec.startsWith('.')) {
            const target = resolve(dirname(file), spec);
            if (!target.startsWith(pkg.dir + '/') && target !== pkg.dir)
              problems.push(`${rel}: relative import leaves the package: ${spec}`);
            continue;
          }
          const m = /^(@trust\/[^/]+)(\/.*)?$/.exec(spec);
          if (!m) continue;
          const [, target, sub = ''] = m;
          if (target === name) {
            if (!isFixture || sub !== '') problems.push(`${rel}: imports its own package by name: ${spec}`);
            continue;
          }
          if (!isTest && !ALLOWED[name]!.includes(target!))
            problems.push(`${rel}: imports ${target}, which ${name} may not depend on`);
          if (!declared.has(target!)) problems.push(`${rel}: imports ${target} without declaring it in package.json`);
          if (!publicSubpaths(byName.get(target!)).has(sub))
            problems.push(`${rel}: reaches into ${target} internals: ${spec}`);
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it.each(libraries.filter((p) => !p.json.private).map((p) => [p.name, p] as const))(
    '%s is publishable on its own',
    (_name, pkg) => {
      expect(existsSync(join(pkg.dir, 'README.md')), 'a README with a runnable example').toBe(true);
      expect(existsSync(join(pkg.dir, 'src', 'index.ts')), 'src/index.ts is the public API').toBe(true);
      // A library has an exports map; a command package (@trust/cli) has a bin and no API.
      if (pkg.json.bin === undefined) expect(pkg.json.exports, 'an exports map').toBeDefined();
      else
        expect([pkg.json.exports, pkg.json.types], 'a command package declares no API').toEqual([undefined, undefined]);
      const deps = { ...pkg.json.dependencies, ...pkg.json.peerDependencies };
      const outside = Object.entries(deps).filter(([, v]) => v.startsWith('file:') || v.startsWith('link:'));
      expect(outside, 'no reliance on files outside the package').toEqual([]);
    },
  );
});
