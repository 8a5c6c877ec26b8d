/**
 * Checks on a packed package (its manifest as npm will see it, and its files), each returning the
 * problems found: an empty list means the tarball is what a user of the registry can install.
 */
import { builtinModules } from 'node:module';
import { posix } from 'node:path';

export interface PackedManifest {
  name: string;
  version: string;
  license?: string;
  keywords?: string[];
  main?: string;
  types?: string;
  exports?: Record<string, unknown> | string;
  engines?: { node?: string };
  bin?: Record<string, string> | string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const DEP_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'] as const;

/**
 * `workspace:` ranges, a missing `types`/`exports` entry, entries naming files not in the tarball, and
 * what a registry user needs besides code: a `license` with its LICENSE text in the tarball, `keywords`.
 */
export function checkManifest(m: PackedManifest, files: ReadonlySet<string>, engines: string): string[] {
  const problems: string[] = [];
  for (const field of DEP_FIELDS) {
    for (const [dep, range] of Object.entries(m[field] ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`${field}.${dep} is "${range}"`);
    }
  }
  if (!m.license) problems.push('no "license" field');
  if (!files.has('LICENSE')) problems.push('no LICENSE file in the tarball');
  if (!Array.isArray(m.keywords) || m.keywords.length === 0) problems.push('no "keywords"');
  if (m.engines?.node !== engines)
    problems.push(`engines.node is ${JSON.stringify(m.engines?.node)}, the workspace declares "${engines}"`);
  // A command package (`bin` and no `exports`, like @trust/cli) declares no API: nothing to type.
  if (m.bin !== undefined && m.exports === undefined) {
    if (m.types || m.main) problems.push('a command package names "types"/"main" but has no "exports"');
  } else {
    problems.push(...checkEntryPoints(m, files));
  }
  const bins = typeof m.bin === 'string' ? { [m.name]: m.bin } : (m.bin ?? {});
  for (const [cmd, file] of Object.entries(bins)) {
    if (!files.has(norm(file))) problems.push(`bin.${cmd} names ${file}, which is not in the tarball`);
  }
  return problems;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([^'"\s,;()]+)\1/gm;

/**
 * Imports in the package's .js/.cjs/.mjs/.d.ts files that a user's install cannot satisfy: a
 * relative path leaving the package, or a bare name that is neither a Node built-in, the package
 * itself nor one of its dependencies.
 */
export function checkImports(m: PackedManifest, files: ReadonlyMap<string, string>): string[] {
  const allowed = new Set([
    m.name,
    ...Object.keys(m.dependencies ?? {}),
    ...Object.keys(m.peerDependencies ?? {}),
    ...Object.keys(m.optionalDependencies ?? {}),
  ]);
  const problems: string[] = [];
  for (const [file, text] of files) {
    if (!/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file)) continue;
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = match[2]!;
      if (spec.startsWith('.') || spec.startsWith('/')) {
        const target = spec.startsWith('/') ? spec : posix.normalize(posix.join(posix.dirname(file), spec));
        if (target.startsWith('/') || target === '..' || target.startsWith('../'))
          problems.push(`${file} imports ${spec}, outside the package`);
        continue;
      }
      if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      if (!allowed.has(name)) problems.push(`${file} imports ${spec}, which is not a dependency`);
    }
  }
  return [...new Set(problems)];
}

function norm(p: string): string {
  return posix.normalize(p).replace(/^\.\//, '');
}

/** A library's `types` and `exports` entries, each naming a file in the tarball. */
function checkEntryPoints(m: PackedManifest, files: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  if (!m.types) problems.push('no "types" entry');
  else if (!files.has(norm(m.types))) problems.push(`"types" names ${m.types}, which is not in the tarball`);
  if (!m.exports || typeof m.exports !== 'object') return [...problems, 'no "exports" map'];
  for (const [sub, target] of Object.entries(m.exports)) {
    const t = (target ?? {}) as Record<string, unknown>;
    for (const cond of ['types', 'import'] as const) {
      const file = t[cond];
      if (typeof file !== 'string') problems.push(`exports["${sub}"] has no "${cond}" entry`);
      else if (!files.has(norm(file)))
        problems.push(`exports["${sub}"].${cond} names ${file}, which is not in the tarball`);
    }
  }
  return problems;
}
