import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Install weight: what the built host imports at run time must be exactly its (small) runtime
// dependencies. jco's CLI and build tooling (componentize-js, binaryen, rolldown, TypeScript)
// are devDependencies; the two jco components the host needs ship inside dist/jco-transpile.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const dist = join(root, 'dist');

function bareImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from\s*|import\s*\(\s*)["']([^"'.][^"']*)["']/g)].map((m) => m[1] as string);
  return found.filter((s) => !s.startsWith('node:') && !builtinModules.includes(s.split('/')[0] as string));
}

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('runtime dependencies (built dist)', () => {
  it('declares no jco CLI or build tooling as a runtime dependency', () => {
    for (const heavy of [
      '@bytecodealliance/jco',
      '@bytecodealliance/jco-transpile',
      '@bytecodealliance/componentize-js',
    ]) {
      expect(Object.keys(pkg.dependencies)).not.toContain(heavy);
    }
  });

  it('imports only declared runtime dependencies, including the vendored jco components', () => {
    expect(existsSync(join(dist, 'index.js')), 'build @trust/wasm-host first').toBe(true);
    const files = [
      ...readdirSync(dist)
        .filter((f) => f.endsWith('.js'))
        .map((f) => join(dist, f)),
      ...['vendor/js-component-bindgen-component.js', 'vendor/wasm-tools.js', 'dist/wasm-tools.js'].map((f) =>
        join(dist, 'jco-transpile', f),
      ),
    ];
    const used = new Set(files.flatMap(bareImports).map(packageOf));
    expect([...used].filter((p) => !(p in pkg.dependencies))).toEqual([]);
    expect(existsSync(join(dist, 'jco-transpile', 'LICENSE'))).toBe(true);
  });
});
