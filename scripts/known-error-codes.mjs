// Reads the known error codes from @trust/core's lists (source, so no build is needed).
// Shared by the codemod and the listing script.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Returns Map<code, area file> for every code in packages/core/src/error-codes*.ts. */
export function readKnownCodes(root) {
  const dir = join(root, 'packages/core/src');
  const known = new Map();
  for (const name of readdirSync(dir).filter((n) => /^error-codes(-[a-z-]+)?\.ts$/.test(n))) {
    const text = readFileSync(join(dir, name), 'utf8');
    for (const list of text.matchAll(/_ERROR_CODES = Object\.freeze\(\[([\s\S]*?)\]/g)) {
      for (const m of list[1].matchAll(/'([A-Z][A-Z0-9_]*)'/g)) known.set(m[1], name);
    }
  }
  return known;
}
