import { printComponentWit } from './component-bindgen.js';
import { wasmError } from './errors.js';
import { sha256Hex } from './hash.js';

/**
 * The interface a component exports, read from the component itself: one canonical WIT line per
 * exported function or type (`name: func(a: u32) -> string`; for an exported interface,
 * `pkg:ns/iface#item: …`), and the SHA-256 of those lines sorted and joined by newlines.
 */
export interface ComponentInterface {
  readonly hash: string;
  /** Item key (function name, or `interface#item`) -> canonical WIT text. */
  readonly items: Readonly<Record<string, string>>;
}

/** What a component imports and exports, read from its embedded WIT. */
export interface ComponentDescription {
  /** SHA-256 of the component bytes. */
  readonly digest: string;
  readonly size: number;
  /** Imported interfaces (`wasi:cli/environment@0.2.12`) and functions, as the WIT names them. */
  readonly imports: readonly string[];
  /** Exported functions (`run: func(...) -> string`) and interfaces. */
  readonly exports: readonly string[];
  readonly interface: ComponentInterface;
  /** The component's world as WIT text. */
  readonly wit: string;
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
}

const norm = (s: string): string =>
  s
    .replace(/\s+/g, ' ')
    .replace(/\s*([(){}<>,:;=])\s*/g, '$1')
    .replace(/([,:])/g, '$1 ')
    .replace(/\s*->\s*/g, ' -> ')
    .trim();

/** Splits a block body into top-level items (ending in `;` or a closing `}` at depth 0). */
function splitItems(body: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) {
        items.push(body.slice(start, i + 1).trim());
        start = i + 1;
      }
    } else if (c === ';' && depth === 0) {
      items.push(body.slice(start, i).trim());
      start = i + 1;
    }
  }
  return items.filter((s) => s !== '');
}

/** Returns the body of the first `<header> {` block in `text`, or undefined. */
function blockBody(text: string, header: RegExp): string | undefined {
  const m = header.exec(text);
  if (!m) return undefined;
  let depth = 0;
  const open = m.index + m[0].length - 1;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open + 1, i);
  }
  return undefined;
}

function itemName(item: string): string {
  const fn = /^([a-z0-9%-]+)\s*:/i.exec(item);
  if (fn) return fn[1]!;
  const ty = /^(?:record|enum|variant|flags|resource|type)\s+([a-z0-9%-]+)/i.exec(item);
  if (ty) return ty[1]!;
  return norm(item);
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Computes the interface of a world from its WIT text (see `ComponentInterface`).
 */
export function interfaceFromWit(witText: string): {
  imports: string[];
  exports: string[];
  interface: ComponentInterface;
} {
  const text = stripComments(witText);
  const world = blockBody(text, /\bworld\s+[a-z0-9%-]+\s*\{/i);
  if (world === undefined)
    throw wasmError('WASM_COMPONENT_INVALID', 'the component has no world in its WIT', {
      hint: 'build the component with a WIT world',
    });
  const imports: string[] = [];
  const exports: string[] = [];
  const items: Record<string, string> = {};
  for (const item of splitItems(world)) {
    const m = /^(import|export)\s+([\s\S]*)$/.exec(item);
    if (!m) continue;
    const rest = m[2]!.trim();
    const isFn = /^[a-z0-9%-]+\s*:\s*(?:async\s+)?func\b/i.test(rest);
    if (m[1] === 'import') {
      imports.push(isFn ? norm(rest) : rest);
      continue;
    }
    exports.push(isFn ? norm(rest) : rest);
    if (isFn) {
      items[itemName(rest)] = norm(rest);
      continue;
    }
    // An exported interface: `ns:pkg/iface@1.0.0`. Hash its body when the WIT text carries it.
    const ifaceName = /\/([a-z0-9%-]+)(?:@[^\s]+)?$/i.exec(rest)?.[1];
    const body = ifaceName ? blockBody(text, new RegExp(`\\binterface\\s+${escapeRe(ifaceName)}\\s*\\{`)) : undefined;
    if (body === undefined) items[rest] = `export ${rest}`;
    else for (const sub of splitItems(body)) items[`${rest}#${itemName(sub)}`] = norm(sub);
  }
  const lines = Object.keys(items)
    .sort()
    .map((k) => `${k}=${items[k]}`);
  return {
    imports,
    exports,
    interface: Object.freeze({ hash: sha256Hex(lines.join('\n')), items: Object.freeze(items) }),
  };
}

/**
 * Reads a component's imports, exports and interface hash from its embedded WIT.
 * Throws `WASM_COMPONENT_INVALID` when the bytes are not a component.
 *
 * @example
 * const info = await describeComponent(readFileSync('greeter.wasm'));
 * info.exports;        // ['greet: func(name: string) -> string']
 * info.interface.hash; // '9f2c…'
 */
export async function describeComponent(bytes: Uint8Array): Promise<ComponentDescription> {
  // preamble: "\0asm", a 16-bit version, then a 16-bit layer: 0 for core modules, 1 for components
  const isComponent =
    bytes.length >= 8 &&
    bytes[0] === 0 &&
    bytes[1] === 0x61 &&
    bytes[2] === 0x73 &&
    bytes[3] === 0x6d &&
    bytes[6] === 1 &&
    bytes[7] === 0;
  if (!isComponent) {
    throw wasmError('WASM_COMPONENT_INVALID', 'not a WebAssembly component (a core module or other bytes)', {
      hint: 'build a component, e.g. with `jco new` or componentize-js',
    });
  }
  let wit: string;
  try {
    wit = await printComponentWit(bytes);
  } catch (cause) {
    throw wasmError(
      'WASM_COMPONENT_INVALID',
      `not a WebAssembly component: ${String((cause as Error)?.message ?? cause).split('\n')[0]}`,
      {
        cause,
        hint: 'build a component (not a core module), e.g. with `jco new` or componentize-js',
      },
    );
  }
  const parsed = interfaceFromWit(wit);
  return Object.freeze({
    digest: sha256Hex(bytes),
    size: bytes.length,
    imports: parsed.imports,
    exports: parsed.exports,
    interface: parsed.interface,
    wit,
  });
}

/**
 * Compares an actual interface with the expected one. Returns the differing item keys
 * (missing, unexpected or changed), or `[]` when they match.
 */
export function diffInterfaces(expected: ComponentInterface, actual: ComponentInterface): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(expected.items)) {
    if (!(k in actual.items)) out.push(`missing ${k} (expected ${v})`);
    else if (actual.items[k] !== v) out.push(`changed ${k}: expected ${v}, got ${actual.items[k]}`);
  }
  for (const [k, v] of Object.entries(actual.items)) if (!(k in expected.items)) out.push(`unexpected ${k} (${v})`);
  return out;
}
