import { parse as parseToml } from 'smol-toml';
import { suggest, tryParseCapabilities, type CapabilitySet, type Problem } from '@trust/core';
import { wasmError } from './errors.js';

/** The manifest format this version reads and writes (`format = 1` at the top of package.toml). */
export const MANIFEST_FORMAT = 1;

/**
 * A validated `package.toml`. Paths are relative to the package root and normalised.
 */
export interface PackageManifest {
  readonly format: 1;
  readonly name: string;
  readonly version: string;
  /**
   * The interface the component claims to implement, e.g. `acme:greeter`. Informational; the host
   * checks the real exports.
   */
  readonly interface?: string;
  readonly interfaceVersion?: number;
  /** Normalised relative path of the component inside the package. */
  readonly component: string;
  /** The capability strings exactly as declared (validated). `[]` means deny-all. */
  readonly capabilities: readonly string[];
  /** The parsed capability set. */
  readonly capabilitySet: CapabilitySet;
  /** The guest's arguments (`wasi:cli/environment.get-arguments`), served only with the `args` capability. */
  readonly args: readonly string[];
  /** Host-defined metadata, passed through unvalidated. `{}` when absent. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

const TOP = ['format', 'package', 'wasm', 'metadata'] as const;
const PACKAGE_KEYS = ['name', 'version', 'interface', 'interface_version'] as const;
const WASM_KEYS = ['component', 'capabilities', 'args'] as const;
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

function unknownKeys(
  table: Record<string, unknown>,
  allowed: readonly string[],
  where: string,
  problems: Problem[],
): void {
  for (const key of Object.keys(table)) {
    if (allowed.includes(key)) continue;
    const guess = suggest(key, allowed);
    problems.push({
      code: 'WASM_MANIFEST_UNKNOWN_KEY',
      path: where ? `${where}.${key}` : key,
      message: `unknown key ${JSON.stringify(key)}${where ? ` in [${where}]` : ''}`,
      hint: guess ? `did you mean "${guess}"?` : `allowed keys: ${allowed.join(', ')}`,
      severity: 'error',
    });
  }
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/**
 * Normalises a package-relative path. Returns `undefined` when the path is absolute, empty,
 * uses backslashes or NUL, or leaves the package through `..`.
 *
 * @example
 * normalizePackagePath('./dist/plugin.wasm'); // 'dist/plugin.wasm'
 * normalizePackagePath('../x.wasm');          // undefined
 */
export function normalizePackagePath(path: string): string | undefined {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0') || /^[A-Za-z]:/.test(path))
    return undefined;
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return undefined;
    out.push(seg);
  }
  return out.length === 0 ? undefined : out.join('/');
}

function requireString(
  table: Record<string, unknown>,
  key: string,
  where: string,
  problems: Problem[],
  example: string,
): string | undefined {
  const v = table[key];
  if (typeof v === 'string' && v !== '') return v;
  problems.push({
    code: 'WASM_MANIFEST_FIELD',
    path: `${where}.${key}`,
    message:
      v === undefined ? `[${where}] is missing ${JSON.stringify(key)}` : `[${where}].${key} must be a non-empty string`,
    hint: `write e.g. ${key} = ${JSON.stringify(example)}`,
    severity: 'error',
  });
  return undefined;
}

function stringList(v: unknown, path: string, problems: Problem[], example: string): string[] {
  if (v === undefined) return [];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  problems.push({
    code: 'WASM_MANIFEST_FIELD',
    path,
    message: `${path} must be a list of strings`,
    hint: `write e.g. ${example}`,
    severity: 'error',
  });
  return [];
}

/**
 * Parses and validates `package.toml` text. Every problem is reported at once.
 *
 * Throws `WASM_MANIFEST_INVALID` (unknown keys with "did you mean", missing or mistyped fields,
 * a component path outside the package, bad TOML) or `WASM_CAPABILITY_UNKNOWN` /
 * `WASM_CAPABILITY_INVALID` (the capability list, parsed by `@trust/core`). `problems` lists each
 * one with its path and a hint.
 *
 * @example
 * const m = parseManifest(`
 * [package]
 * name = "greeter"
 * version = "1.0.0"
 * [wasm]
 * component = "greeter.wasm"
 * capabilities = ["env:LOG_LEVEL"]
 * `);
 * m.capabilitySet.envNames; // ['LOG_LEVEL']
 */
export function parseManifest(text: string): PackageManifest {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (cause) {
    const at = cause as { message?: string; line?: unknown; column?: unknown };
    const where =
      typeof at.line === 'number' && typeof at.column === 'number' ? ` at line ${at.line}, column ${at.column}` : '';
    const reason = String(at.message ?? cause)
      .split('\n')[0]
      ?.replace(/^Invalid TOML document:\s*/, '');
    throw wasmError('WASM_MANIFEST_INVALID', `package.toml is not valid TOML${where}: ${reason}`, {
      cause,
      hint: `fix the TOML syntax${where}; see the package format in the @trust/wasm-host README`,
    });
  }
  const problems: Problem[] = [];
  unknownKeys(doc, TOP, '', problems);
  if (doc.format !== undefined && doc.format !== MANIFEST_FORMAT) {
    problems.push({
      code: 'WASM_MANIFEST_FORMAT',
      path: 'format',
      message: `unsupported manifest format ${JSON.stringify(doc.format)}`,
      hint: `this host reads format = ${MANIFEST_FORMAT}`,
      severity: 'error',
    });
  }
  const pkg = isTable(doc.package) ? doc.package : undefined;
  const wasm = isTable(doc.wasm) ? doc.wasm : undefined;
  if (!pkg)
    problems.push({
      code: 'WASM_MANIFEST_FIELD',
      path: 'package',
      message: 'missing [package] table',
      hint: '[package]\nname = "greeter"\nversion = "1.0.0"',
      severity: 'error',
    });
  if (!wasm)
    problems.push({
      code: 'WASM_MANIFEST_FIELD',
      path: 'wasm',
      message: 'missing [wasm] table',
      hint: '[wasm]\ncomponent = "plugin.wasm"\ncapabilities = []',
      severity: 'error',
    });
  if (doc.metadata !== undefined && !isTable(doc.metadata)) {
    problems.push({
      code: 'WASM_MANIFEST_FIELD',
      path: 'metadata',
      message: '[metadata] must be a table',
      hint: '[metadata]\nowner = "team-a"',
      severity: 'error',
    });
  }

  let name: string | undefined;
  let version: string | undefined;
  let iface: string | undefined;
  let ifaceVersion: number | undefined;
  if (pkg) {
    unknownKeys(pkg, PACKAGE_KEYS, 'package', problems);
    name = requireString(pkg, 'name', 'package', problems, 'greeter');
    if (name !== undefined && !NAME.test(name)) {
      problems.push({
        code: 'WASM_MANIFEST_FIELD',
        path: 'package.name',
        message: `package name ${JSON.stringify(name)} is not allowed`,
        hint: 'use 1-64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
        severity: 'error',
      });
    }
    version = requireString(pkg, 'version', 'package', problems, '1.0.0');
    if (pkg.interface !== undefined) iface = requireString(pkg, 'interface', 'package', problems, 'acme:greeter');
    if (pkg.interface_version !== undefined) {
      const v = pkg.interface_version;
      if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v) && v >= 0)) ifaceVersion = Number(v);
      else
        problems.push({
          code: 'WASM_MANIFEST_FIELD',
          path: 'package.interface_version',
          message: 'package.interface_version must be a non-negative integer',
          hint: 'write e.g. interface_version = 1',
          severity: 'error',
        });
    }
  }

  let component: string | undefined;
  let capabilities: string[] = [];
  let args: string[] = [];
  let capabilitySet: CapabilitySet | undefined;
  let capabilityCode: 'WASM_CAPABILITY_UNKNOWN' | 'WASM_CAPABILITY_INVALID' | undefined;
  if (wasm) {
    unknownKeys(wasm, WASM_KEYS, 'wasm', problems);
    const raw = requireString(wasm, 'component', 'wasm', problems, 'plugin.wasm');
    if (raw !== undefined) {
      component = normalizePackagePath(raw);
      if (component === undefined) {
        problems.push({
          code: 'WASM_PACKAGE_UNSAFE_PATH',
          path: 'wasm.component',
          message: `component path ${JSON.stringify(raw)} is not inside the package`,
          hint: 'use a relative path inside the package, e.g. component = "plugin.wasm"',
          severity: 'error',
        });
      }
    }
    capabilities = stringList(
      wasm.capabilities,
      'wasm.capabilities',
      problems,
      'capabilities = ["env:LOG_LEVEL", "http"]',
    );
    args = stringList(wasm.args, 'wasm.args', problems, 'args = ["--verbose"]');
    const parsed = tryParseCapabilities(capabilities);
    if (parsed.ok) capabilitySet = parsed.set;
    else {
      capabilityCode = parsed.error.problems.some((p) => p.code === 'CAPABILITY_UNKNOWN')
        ? 'WASM_CAPABILITY_UNKNOWN'
        : 'WASM_CAPABILITY_INVALID';
      for (const p of parsed.error.problems) problems.push({ ...p, path: `wasm.capabilities${p.path ?? ''}` });
    }
  }

  if (problems.length > 0) {
    const onlyCaps = capabilityCode !== undefined && problems.every((p) => p.code.startsWith('CAPABILITY_'));
    const code = onlyCaps ? capabilityCode! : 'WASM_MANIFEST_INVALID';
    const lines = problems.map((p) => `${p.path}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`);
    throw wasmError(
      code,
      `package.toml is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${lines.join('; ')}`,
      {
        problems,
        hint: problems[0]?.hint,
      },
    );
  }
  return Object.freeze({
    format: 1,
    name: name!,
    version: version!,
    ...(iface !== undefined ? { interface: iface } : {}),
    ...(ifaceVersion !== undefined ? { interfaceVersion: ifaceVersion } : {}),
    component: component!,
    capabilities: Object.freeze([...capabilities]),
    capabilitySet: capabilitySet!,
    args: Object.freeze([...args]),
    metadata: Object.freeze({ ...((doc.metadata as Record<string, unknown>) ?? {}) }),
  });
}
