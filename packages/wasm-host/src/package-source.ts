import { readFile, stat } from 'node:fs/promises';
import { PACKAGE_EXTENSION, readPackageArchive } from './archive.js';
import { wasmError } from './errors.js';
import { readPackageDir, type PackageFiles, type PackageLimits } from './package-files.js';

/**
 * What `host.load` and `inspectPackage` accept: a package dir, a `.tpkg` file, a `.wasm` file,
 * bytes, or in-memory files.
 */
export type PluginSource = string | Uint8Array | PackageFiles;

/** A source read into memory once: a package, or a bare component (no manifest, cannot be signed). */
export type LoadedSource =
  | { readonly kind: 'package'; readonly pkg: PackageFiles }
  | { readonly kind: 'component'; readonly bytes: Uint8Array; readonly source: string };

const isGzip = (b: Uint8Array) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

/** Reads a plugin source into memory. Every later step works on these bytes only. */
export async function readSource(source: PluginSource, limits: PackageLimits = {}): Promise<LoadedSource> {
  if (typeof source !== 'string') {
    if (source instanceof Uint8Array) {
      return isGzip(source)
        ? { kind: 'package', pkg: await readPackageArchive(source, limits) }
        : { kind: 'component', bytes: source, source: '<bytes>' };
    }
    return { kind: 'package', pkg: source };
  }
  const st = await stat(source).catch(() => undefined);
  if (!st)
    throw wasmError('WASM_PACKAGE_NOT_FOUND', `no plugin at ${source}`, {
      hint: 'pass a package directory, a .tpkg archive or a .wasm component',
    });
  if (st.isDirectory()) return { kind: 'package', pkg: await readPackageDir(source, limits) };
  const bytes = new Uint8Array(await readFile(source));
  // A .tpkg name is a claim to be an archive: judge it as one, so a damaged archive is reported
  // as such and not as a broken component.
  if (isGzip(bytes) || source.toLowerCase().endsWith(PACKAGE_EXTENSION))
    return { kind: 'package', pkg: await readPackageArchive(bytes, limits, source) };
  return { kind: 'component', bytes, source };
}
