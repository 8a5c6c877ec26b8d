// Core is pure: only the Node-only subpath (src/node) may use Node built-ins at runtime, and only
// the testing subpath (src/testing) may import vitest.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));
const BUILTINS = new Set(builtinModules);
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

function runtimeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node' ? [] : runtimeFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('purity', () => {
  it('no runtime file outside src/node imports a Node built-in or an undeclared package', () => {
    const problems: string[] = [];
    for (const file of runtimeFiles(src)) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
        const s = spec as string;
        if (s.startsWith('.')) continue;
        if (s.startsWith('node:') || BUILTINS.has(s.split('/')[0] as string))
          problems.push(`${relative(src, file)}: ${s}`);
        else if (s !== 'zod' && !(s === 'vitest' && relative(src, file).startsWith('testing')))
          problems.push(`${relative(src, file)}: ${s}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
