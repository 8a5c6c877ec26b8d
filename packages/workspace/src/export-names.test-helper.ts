import { readFileSync } from 'node:fs';

/** The names an entry file declares, split into values and type-only names. */
export interface DeclaredExports {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

const LIST = /export\s+(type\s+)?\{([^}]*)\}/g;

/**
 * Reads an entry file's `export { … }` and `export type { … }` lists. The entry files only
 * re-export named lists; an `export *` or any other export form would hide names from this
 * reading, so it is refused rather than ignored.
 */
export function declaredExports(url: URL): DeclaredExports {
  const text = readFileSync(url, 'utf8');
  const other = text.split('\n').filter((l) => /^export\b/.test(l) && !/^export\s+(type\s+)?\{/.test(l));
  if (other.length > 0)
    throw new Error(`${url.pathname}: only named export lists are read, found: ${other.join('; ')}`);
  const values: string[] = [];
  const types: string[] = [];
  for (const match of text.matchAll(LIST)) {
    const typeOnly = match[1] !== undefined;
    for (const raw of (match[2] ?? '').split(',')) {
      const item = raw.trim();
      if (item === '') continue;
      const name =
        item
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .pop() ?? item;
      (typeOnly || item.startsWith('type ') ? types : values).push(name);
    }
  }
  return { values: values.sort(), types: types.sort() };
}
