import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Cold start: `trust --help` and `trust <command> --help` must not load any @trust package (zod,
// undici, SQLite, the WASM host…). This walks the static imports of the built files.
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
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

// The command table sits in index.js or in a chunk it imports statically.
const entryFiles = [...staticClosure('index.js')].filter(
  (f) => f.endsWith('.js') && !f.startsWith('@') && !f.startsWith('node:'),
);
const commandFiles = entryFiles.flatMap((f) =>
  [...readFileSync(join(dist, f), 'utf8').matchAll(/load: \(\) => import\("\.\/([^"]+)"\)/g)].map(
    (m) => m[1] as string,
  ),
);

describe('lazy loading (built binary)', () => {
  it('finds every command module in the command table', () => {
    expect(commandFiles.length).toBeGreaterThanOrEqual(20);
  });

  it.each([['index.js'], ['root-help.js'], ...commandFiles.map((f) => [f])])(
    '%s statically imports no @trust package',
    (file) => {
      const heavy = [...staticClosure(file)].filter((s) => s.startsWith('@trust/') || s === 'zod');
      expect(heavy).toEqual([]);
    },
  );
});
