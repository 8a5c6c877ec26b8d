import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BIN } from './run-cli.test-helper.js';

// Cold start: `trust --help` and `trust <command> --help` must not load any @trust package (zod,
// undici, SQLite, the WASM host…). This walks the static imports of the built files.
const dist = dirname(BIN);
const STATIC_IMPORT = /^import\s+(?:[^'"]*?\sfrom\s+)?["']([^"']+)["'];?$/gm;

function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(dist, file), 'utf8');
  for (const m of text.matchAll(STATIC_IMPORT)) {
    const spec = m[1] as string;
    if (spec.startsWith('./')) staticClosure(spec.slice(2), seen);
    else seen.add(spec);
  }
  return seen;
}

const commandFiles = [...readFileSync(BIN, 'utf8').matchAll(/load: \(\) => import\("\.\/([^"]+)"\)/g)].map((m) => m[1] as string);

describe('lazy loading (built binary)', () => {
  it('finds every command module in the command table', () => {
    expect(commandFiles.length).toBeGreaterThanOrEqual(20);
  });

  it.each([['index.js'], ...commandFiles.map((f) => [f])])('%s statically imports no @trust package', (file) => {
    const heavy = [...staticClosure(file)].filter((s) => s.startsWith('@trust/') || s === 'zod');
    expect(heavy).toEqual([]);
  });
});
