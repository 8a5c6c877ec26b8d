import { usageError } from './cli-error.js';

/** One parameter of an exported function, as its WIT names it. */
export interface ExportParam {
  readonly name: string;
  readonly type: string;
}

const INT_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = Object.freeze({
  u8: [0n, 255n],
  u16: [0n, 65_535n],
  u32: [0n, 4_294_967_295n],
  u64: [0n, 18_446_744_073_709_551_615n],
  s8: [-128n, 127n],
  s16: [-32_768n, 32_767n],
  s32: [-2_147_483_648n, 2_147_483_647n],
  s64: [-9_223_372_036_854_775_808n, 9_223_372_036_854_775_807n],
});

/** Splits `a, b<c, d>, e` at commas outside brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '<' || c === '(') depth++;
    else if (c === '>' || c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

/**
 * The parameters of a WIT function line (`add: func(a: u32, b: u32) -> u32`), or `undefined`
 * when the line is not a function (an exported interface or type).
 *
 * @example
 * parseWitParams('add: func(a: u32, b: u32) -> u32'); // [{ name: 'a', type: 'u32' }, { name: 'b', type: 'u32' }]
 */
export function parseWitParams(wit: string): ExportParam[] | undefined {
  const m = /^[^\s]*?:\s*(?:async\s+)?func\s*\(/.exec(wit);
  if (!m) return undefined;
  let depth = 1;
  let i = m[0].length;
  for (; i < wit.length && depth > 0; i++) {
    if (wit[i] === '(') depth++;
    else if (wit[i] === ')') depth--;
  }
  const inner = wit.slice(m[0].length, i - 1);
  return splitTopLevel(inner).map((p) => {
    const colon = p.indexOf(':');
    return { name: p.slice(0, colon).trim(), type: p.slice(colon + 1).trim() };
  });
}

/** The WIT line of an export named on the command line (`add`, `envCount`, `iface.fn`), if any. */
export function findExportWit(items: Readonly<Record<string, string>>, exportName: string): string | undefined {
  const kebab = exportName.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  for (const key of [exportName, kebab, exportName.replace('.', '#'), kebab.replace('.', '#')]) {
    const hit = items[key];
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** A word that would be accepted for `param`, for an example command line. */
function exampleWord(param: ExportParam, index: number): string {
  if (INT_RANGES[param.type]) return String(index + 2);
  return param.type === 'string' ? 'text' : '…';
}

function fail(param: ExportParam, index: number, text: string, expected: string, example: string): never {
  throw usageError(
    'CLI_USAGE_INVALID_ARGUMENT',
    `argument ${index + 1} (${param.name}: ${param.type}) must be ${expected}, got '${text}'`,
    `for example ${example}`,
  );
}

/** Converts one command-line word to a value of a WIT type, or throws a usage error. */
function convert(param: ExportParam, index: number, text: string): unknown {
  const type = param.type;
  const range = INT_RANGES[type];
  if (range) {
    const n = /^-?\d+$/.test(text) ? BigInt(text) : undefined;
    if (n === undefined || n < range[0] || n > range[1])
      fail(param, index, text, `a whole number from ${range[0]} to ${range[1]}`, '2');
    return type.endsWith('64') ? n : Number(n);
  }
  if (type === 'f32' || type === 'f64') {
    const n = text.trim() === '' ? NaN : Number(text);
    if (!Number.isFinite(n)) fail(param, index, text, 'a number', '1.5');
    return n;
  }
  if (type === 'bool') {
    if (text !== 'true' && text !== 'false') fail(param, index, text, 'true or false', 'true');
    return text === 'true';
  }
  if (type === 'string') {
    // A JSON string literal is unquoted; any other word is the string itself.
    if (text.startsWith('"')) {
      try {
        const v: unknown = JSON.parse(text);
        if (typeof v === 'string') return v;
      } catch {
        // not a JSON string: the word itself
      }
    }
    return text;
  }
  if (type === 'char') {
    if ([...text].length !== 1) fail(param, index, text, 'exactly one character', 'x');
    return text;
  }
  // Compound types (list, option, record, …): JSON, checked further by the component's glue.
  try {
    return JSON.parse(text);
  } catch {
    return fail(param, index, text, `JSON for ${type}`, type.startsWith('list') ? '[1,2]' : '{"field":1}');
  }
}

/**
 * Checks command-line arguments against an export's parameters and converts them: the count
 * must match and each word must be a value of its type. Anything else is a usage error (exit 2)
 * before the export is called.
 *
 * @example
 * convertExportArgs('add', [{ name: 'a', type: 'u32' }, { name: 'b', type: 'u32' }], ['2', '3']); // [2, 3]
 */
export function convertExportArgs(
  exportName: string,
  params: readonly ExportParam[],
  words: readonly string[],
): unknown[] {
  if (words.length !== params.length) {
    const sig = params.map((p) => `${p.name}: ${p.type}`).join(', ');
    throw usageError(
      'CLI_USAGE_INVALID_ARGUMENT',
      `${exportName} takes ${params.length} ` +
        `argument${params.length === 1 ? '' : 's'} (${sig || 'none'}), ` +
        `got ${words.length}`,
      params.length === 0
        ? `call it without arguments: … ${exportName}`
        : `for example: … ${exportName} ${params.map((p, i) => exampleWord(p, i)).join(' ')}`,
    );
  }
  return words.map((w, i) => convert(params[i] as ExportParam, i, w));
}
