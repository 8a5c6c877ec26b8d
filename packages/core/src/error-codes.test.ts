import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_ERROR_CODES, CAPABILITY_ERROR_CODES, CORE_ERROR_CODES, POLICY_ERROR_CODES } from './error-codes.js';

const src = dirname(fileURLToPath(import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory()
      ? files(p)
      : n.endsWith('.ts') && !n.endsWith('.test.ts') && n !== 'error-codes.ts'
        ? [p]
        : [];
  });

describe('error codes', () => {
  it('lists every CAPABILITY_/POLICY_/AUDIT_ code the source uses', () => {
    const known = new Set<string>([
      ...CAPABILITY_ERROR_CODES,
      ...POLICY_ERROR_CODES,
      ...AUDIT_ERROR_CODES,
      ...CORE_ERROR_CODES,
    ]);
    const used = new Set<string>();
    for (const f of files(src))
      for (const m of readFileSync(f, 'utf8').matchAll(/'((?:CAPABILITY|POLICY|AUDIT)_[A-Z_]+)'/g))
        used.add(m[1] as string);
    expect([...used].filter((c) => !known.has(c))).toEqual([]);
    expect(used.size).toBeGreaterThan(20);
  });

  it('has no duplicates', () => {
    const all = [...CAPABILITY_ERROR_CODES, ...POLICY_ERROR_CODES, ...AUDIT_ERROR_CODES, ...CORE_ERROR_CODES];
    expect(new Set(all).size).toBe(all.length);
  });
});
