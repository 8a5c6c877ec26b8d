import { createHash } from 'node:crypto';
import { transform } from 'sucrase';
import { typeStripperOptionsSchema } from '../options/code-options.js';
import { checkOptions } from '../options/strict-options.js';

/** The language of a piece of agent code. */
export type CodeLanguage = 'javascript' | 'typescript';

/** The outcome of stripping: JavaScript to run, or a syntax error with its position. */
export type TypeStripResult =
  | { readonly ok: true; readonly code: string }
  | { readonly ok: false; readonly message: string; readonly line?: number; readonly column?: number };

/** Turns TypeScript into JavaScript on the host, before the isolate ever sees it. */
export interface TypeStripper {
  /** Strips the types of `source`; `file` only names it in messages. Never throws on bad input. */
  strip(source: string, file?: string): TypeStripResult;
  /** Entries in the cache now (for tests and diagnostics). */
  size(): number;
}

/** Options of {@link createTypeStripper}. */
export interface TypeStripperOptions {
  /** Most results kept, least recently used evicted first (default 128; 0 disables the cache). */
  readonly maxEntries?: number;
  /** Most bytes of cached output (default 16 MiB): one huge file never pins the heap. */
  readonly maxBytes?: number;
}

const named = (r: TypeStripResult, file: string): TypeStripResult =>
  r.ok ? r : { ...r, message: `${file}: ${r.message}` };

/** True for the file names whose content is TypeScript (`.ts`, `.mts`, `.cts`). */
export function isTypeScriptPath(path: string): boolean {
  return /\.[mc]?ts$/i.test(path);
}

/**
 * Creates a type stripper: sucrase with the `typescript` transform only. Types, interfaces,
 * generics, `as`/`satisfies`, access modifiers and `declare` are erased; enums and parameter
 * properties become plain JavaScript. **Nothing is type-checked**: a type error runs as the
 * JavaScript it erases to. Modern syntax (class fields, `?.`, `??`) is kept as written, since
 * QuickJS runs it natively. The transform is pure string work on the host: no code is evaluated
 * here, and the output runs in the same isolate, with the same limits, as JavaScript.
 *
 * Results are cached per SHA-256 of the source (bounded by entries and bytes), so a warm lambda
 * is not re-parsed on every firing.
 *
 * @example
 * ```ts
 * const stripper = createTypeStripper();
 * stripper.strip('const n: number = 1; return n as number;'); // { ok: true, code: 'const n = 1; return n ;' }
 * ```
 */
export function createTypeStripper(options: TypeStripperOptions = {}): TypeStripper {
  checkOptions('createTypeStripper', typeStripperOptionsSchema, options);
  const maxEntries = Math.max(0, options.maxEntries ?? 128);
  const maxBytes = Math.max(0, options.maxBytes ?? 16 * 1024 * 1024);
  // Map iteration order is insertion order: re-inserting on a hit makes it an LRU.
  const cache = new Map<string, TypeStripResult>();
  let bytes = 0;
  const weigh = (r: TypeStripResult) => (r.ok ? r.code.length : r.message.length) * 2;
  const remember = (key: string, r: TypeStripResult) => {
    const w = weigh(r);
    if (maxEntries === 0 || w > maxBytes) return;
    cache.set(key, r);
    bytes += w;
    for (const [k, v] of cache) {
      if (cache.size <= maxEntries && bytes <= maxBytes) break;
      cache.delete(k);
      bytes -= weigh(v);
    }
  };
  return {
    strip(source, file = 'agent-code.ts') {
      const key = createHash('sha256').update(source).digest('hex');
      const hit = cache.get(key);
      if (hit) {
        cache.delete(key);
        cache.set(key, hit);
        return named(hit, file);
      }
      let result: TypeStripResult;
      try {
        result = { ok: true, code: transform(source, { transforms: ['typescript'], disableESTransforms: true }).code };
      } catch (e) {
        const loc = (e as { loc?: { line?: unknown; column?: unknown } }).loc;
        const line = typeof loc?.line === 'number' ? loc.line : undefined;
        const column = typeof loc?.column === 'number' ? loc.column + 1 : undefined;
        const reason = (e instanceof Error ? e.message : String(e)).replace(/\s*\(\d+:\d+\)\s*$/, '');
        const col = column !== undefined ? `, column ${column}` : '';
        const at = line !== undefined ? ` at line ${line}${col}` : '';
        result = {
          ok: false,
          message: `TypeScript syntax error${at}: ${reason}`,
          ...(line !== undefined ? { line } : {}),
          ...(column !== undefined ? { column } : {}),
        };
      }
      remember(key, result);
      return named(result, file);
    },
    size: () => cache.size,
  };
}
