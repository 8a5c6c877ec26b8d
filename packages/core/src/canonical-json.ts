import { TrustError } from './error.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Any surrogate at all: most strings have none, and this test is much cheaper than the one above. */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

function fail(what: string, path: string): never {
  throw new TrustError('CANONICAL_JSON_INVALID', `cannot canonicalise ${what} at ${path || '(root)'}`, {
    hint: 'use only JSON data: objects, arrays, strings, finite numbers, booleans and null',
  });
}

/**
 * Where a value sits, as segments (a number is an array index, a string an object key). The
 * text form (`.a[2].b`) is only built when something fails, so the happy path does not pay for it.
 */
type Path = (string | number)[];

function pathText(path: Path): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
}

function str(s: string, path: Path): string {
  if (ANY_SURROGATE.test(s) && LONE_SURROGATE.test(s)) fail('a string with a lone surrogate', pathText(path));
  return JSON.stringify(s);
}

function write(value: unknown, path: Path, seen: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      return fail('a bigint', pathText(path));
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) fail(`the number ${value}`, pathText(path));
      // ECMAScript Number-to-string is exactly the serialisation RFC 8785 prescribes (-0 is "0").
      return String(value);
    case 'string':
      return str(value, path);
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (seen.has(obj)) fail('a cycle', pathText(path));
  seen.add(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = `[${obj
      .map((item, i) => {
        path.push(i);
        const v = write(item, path, seen);
        path.pop();
        return v ?? 'null';
      })
      .join(',')}]`;
  } else {
    const parts: string[] = [];
    // Default sort compares UTF-16 code units, as RFC 8785 requires.
    for (const key of Object.keys(obj).sort()) {
      path.push(key);
      const v = write((obj as Record<string, unknown>)[key], path, seen);
      path.pop();
      if (v !== undefined) parts.push(`${str(key, path)}:${v}`);
    }
    out = `{${parts.join(',')}}`;
  }
  seen.delete(obj);
  return out;
}

/**
 * Serialises `value` as RFC 8785 JSON Canonicalization Scheme (JCS) text: object keys sorted
 * by UTF-16 code units, no whitespace, numbers in ECMAScript form, strings with JSON's minimal
 * escaping. Like `JSON.stringify`, it calls `toJSON`, drops `undefined` (and function) object
 * members and writes them as `null` in arrays. Non-finite numbers, bigints, cycles, lone
 * surrogates and a top-level `undefined` throw `CANONICAL_JSON_INVALID`.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null, 1e21] }); // '{"a":[true,null,1e+21],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  const out = write(value, [], new Set());
  if (out === undefined) fail('undefined', '');
  return out;
}
