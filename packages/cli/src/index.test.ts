import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// src/index.ts is the `trust` binary, not a library: importing it would run the CLI. This pins
// that it exports nothing and stays a thin entry (the command table loads commands lazily).
describe('src/index.ts', () => {
  const text = readFileSync(new URL('./index.ts', import.meta.url), 'utf8');

  it('starts with the node shebang and exports nothing', () => {
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(text).not.toMatch(/^export /m);
  });

  it('is loaded by the package bin, a CommonJS stub that prints the root help itself', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      bin: Record<string, string>;
      files: string[];
    };
    expect(pkg.bin).toEqual({ trust: './bin/trust.cjs' });
    expect(pkg.files).toContain('bin');
    const stub = readFileSync(new URL('../bin/trust.cjs', import.meta.url), 'utf8');
    expect(stub.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(stub).toContain("import('../dist/index.js')");
  });

  it('imports only the framework, never a command or a @trust package, at start-up', () => {
    const imports = [...text.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports).toEqual(['./main.js', './io.js']);
    const main = readFileSync(new URL('./main.ts', import.meta.url), 'utf8');
    expect(main).not.toMatch(/from '@trust\//);
    expect(main).not.toMatch(/from '\.\/commands\//);
  });
});
