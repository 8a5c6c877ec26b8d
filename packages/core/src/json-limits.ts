import { allow, deny, type Decision } from './decision.js';
import { TrustError } from './error.js';

/**
 * The nesting cap every structured input edge applies unless told otherwise: 64 levels of arrays
 * and objects. Deep enough for any real message, tool call or config; far from the depth at which
 * recursive code (`JSON.stringify`, canonicalisation, schema validation) runs out of stack.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Largest number of values {@link checkJsonValue} visits by default (bounds the walk of a shared graph). */
const DEFAULT_MAX_NODES = 1_000_000;

/**
 * Limits of one structured input. Depth counts open containers: `1` and `"a"` have depth 0,
 * `[]` and `{}` depth 1, `[[1]]` depth 2.
 */
export interface JsonLimits {
  /** Deepest nesting accepted. Default {@link DEFAULT_MAX_JSON_DEPTH}. */
  readonly maxDepth?: number;
  /** Largest UTF-8 size of the text, in bytes ({@link checkJsonText} only). Omitted: no size cap. */
  readonly maxBytes?: number;
  /** Most values visited ({@link checkJsonValue} only). Default 1,000,000. */
  readonly maxNodes?: number;
}

const tooDeep = (max: number): Decision =>
  deny('INPUT_TOO_DEEP', `the input nests arrays and objects deeper than ${max} levels`, {
    rule: 'json-depth',
    hint: `flatten the data to at most ${max} levels of nesting`,
  });

const tooLarge = (what: string, max: number): Decision =>
  deny('INPUT_TOO_LARGE', `the input has more than ${max} ${what}`, {
    rule: 'json-size',
    hint: 'send less data, or a reference to it',
  });

/**
 * Checks raw JSON text against the limits **before** it is parsed, with one iterative pass over
 * the characters (no recursion, no allocation): brackets inside strings do not count, escapes are
 * honoured. It does not validate the JSON otherwise; `JSON.parse` still decides that. Stops at
 * the first byte over a limit.
 *
 * @example
 * checkJsonText('[[1]]'); // { allow: true, rule: 'json-limits' }
 * checkJsonText('['.repeat(65)); // { allow: false, code: 'INPUT_TOO_DEEP', … }
 * checkJsonText('"ab"', { maxBytes: 3 }); // { allow: false, code: 'INPUT_TOO_LARGE', … }
 */
export function checkJsonText(text: string, limits: JsonLimits = {}): Decision {
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const maxBytes = limits.maxBytes ?? Infinity;
  let depth = 0;
  let bytes = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // UTF-8 size: a surrogate pair is 4 bytes (2 + 2 here); any other code unit 1 to 3.
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
    if (bytes > maxBytes) return tooLarge('bytes', maxBytes);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c /* \ */) escaped = true;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return tooDeep(maxDepth);
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      if (depth > 0) depth--;
    }
  }
  return allow('json-limits');
}

/**
 * Checks an already-built value (e.g. tool arguments a provider SDK handed over) against the
 * depth and node limits with an explicit stack, never recursion. Arrays and plain objects count
 * as containers (their own enumerable keys are visited); every other value is a leaf. A cyclic
 * value is refused as too deep. Reading a property runs its getter: pass data, not live objects.
 *
 * @example
 * checkJsonValue({ a: [1, { b: 2 }] }); // allow (depth 3)
 * checkJsonValue(JSON.parse('['.repeat(65) + ']'.repeat(65))); // deny INPUT_TOO_DEEP
 */
export function checkJsonValue(value: unknown, limits: JsonLimits = {}): Decision {
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const maxNodes = limits.maxNodes ?? DEFAULT_MAX_NODES;
  const stack: { v: unknown; d: number }[] = [{ v: value, d: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (++nodes > maxNodes) return tooLarge('values', maxNodes);
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > maxDepth) return tooDeep(maxDepth);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], d: depth });
    } else {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) stack.push({ v: o[k], d: depth });
    }
  }
  return allow('json-limits');
}

/**
 * Parses JSON text only after {@link checkJsonText} allowed it. Throws a TrustError with code
 * `INPUT_TOO_DEEP`, `INPUT_TOO_LARGE` or `INPUT_JSON_INVALID` (its `decision` holds the refusal).
 *
 * @example
 * parseJsonWithLimits('{"a":1}'); // { a: 1 }
 * parseJsonWithLimits('['.repeat(100)); // throws INPUT_TOO_DEEP
 */
export function parseJsonWithLimits(text: string, limits: JsonLimits = {}): unknown {
  const d = checkJsonText(text, limits);
  if (!d.allow)
    throw new TrustError(d.code, d.reason, { decision: d, ...(d.hint === undefined ? {} : { hint: d.hint }) });
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    const invalid = deny('INPUT_JSON_INVALID', 'the input is not valid JSON', {
      rule: 'json-syntax',
      hint: 'send one JSON value, e.g. {"a":1}',
    });
    throw new TrustError(invalid.code, invalid.reason, { decision: invalid, hint: invalid.hint!, cause });
  }
}
