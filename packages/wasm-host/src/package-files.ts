import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { wasmError } from './errors.js';
import { normalizePackagePath } from './manifest.js';

/**
 * A plugin package held in memory: every file, by normalised relative path. The loader reads a
 * package once into this form, verifies it, and then loads the very bytes it verified.
 */
export interface PackageFiles {
  readonly kind: 'package-files';
  /** Where it came from (a directory or archive path), for messages only. */
  readonly source: string;
  readonly files: ReadonlyMap<string, Uint8Array>;
}

/** Caps applied when reading a package directory or archive. `undefined` fields take the defaults. */
export interface PackageLimits {
  /** Maximum number of files (default 10 000). */
  readonly maxEntries?: number;
  /** Maximum total size of all files in bytes (default 256 MiB). */
  readonly maxTotalBytes?: number;
  /** Maximum ratio of unpacked to compressed size for archives (default 50). */
  readonly maxRatio?: number;
}

export const DEFAULT_PACKAGE_LIMITS: Required<PackageLimits> = Object.freeze({
  maxEntries: 10_000,
  maxTotalBytes: 256 * 1024 * 1024,
  maxRatio: 50,
});

/** Builds a `PackageFiles` from a map or record of path -> bytes, validating every path. */
export function createPackageFiles(
  entries: Iterable<[string, Uint8Array]> | Record<string, Uint8Array>,
  source = '<memory>',
): PackageFiles {
  const files = new Map<string, Uint8Array>();
  const iter =
    Symbol.iterator in (entries as object) ? (entries as Iterable<[string, Uint8Array]>) : Object.entries(entries);
  for (const [raw, bytes] of iter) {
    const path = normalizePackagePath(raw);
    if (path === undefined || path !== raw) {
      throw wasmError(
        'WASM_PACKAGE_UNSAFE_PATH',
        `package entry ${JSON.stringify(raw)} is not a normalised path inside the package`,
        {
          hint: 'use relative paths without "..", "." segments, backslashes or a leading "/"',
        },
      );
    }
    if (files.has(path))
      throw wasmError('WASM_PACKAGE_UNSAFE_PATH', `package entry ${JSON.stringify(path)} appears twice`, {
        hint: 'remove the duplicate entry',
      });
    files.set(path, bytes);
  }
  return Object.freeze({ kind: 'package-files', source, files });
}

/**
 * Reads every regular file below `dir` into memory. Symlinks, sockets, devices and FIFOs are
 * refused (`WASM_PACKAGE_UNSAFE_PATH`), so nothing outside the directory can be pulled in;
 * exceeding the limits throws `WASM_PACKAGE_TOO_LARGE`.
 *
 * @example
 * const pkg = await readPackageDir('./greeter');
 * [...pkg.files.keys()]; // ['greeter.wasm', 'package.sig', 'package.toml']
 */
export async function readPackageDir(dir: string, limits: PackageLimits = {}): Promise<PackageFiles> {
  const max = { ...DEFAULT_PACKAGE_LIMITS, ...limits };
  const out: [string, Uint8Array][] = [];
  let total = 0;
  async function walk(rel: string): Promise<void> {
    const names = (await readdir(join(dir, rel))).sort();
    for (const name of names) {
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const st = await lstat(join(dir, relPath));
      if (st.isDirectory()) {
        await walk(relPath);
      } else if (st.isFile()) {
        if (out.length + 1 > max.maxEntries)
          throw wasmError('WASM_PACKAGE_TOO_LARGE', `package ${dir} has more than ${max.maxEntries} files`, {
            hint: 'remove files the plugin does not need',
          });
        total += st.size;
        if (total > max.maxTotalBytes)
          throw wasmError('WASM_PACKAGE_TOO_LARGE', `package ${dir} is larger than ${max.maxTotalBytes} bytes`, {
            hint: 'remove files the plugin does not need',
          });
        out.push([relPath, new Uint8Array(await readFile(join(dir, relPath)))]);
      } else {
        throw wasmError(
          'WASM_PACKAGE_UNSAFE_PATH',
          `package entry ${JSON.stringify(relPath)} is not a regular file or directory ` +
            '(symlinks, devices and sockets are refused)',
          {
            hint: 'replace the link with a copy of the file',
          },
        );
      }
    }
  }
  await walk('');
  return createPackageFiles(out, dir);
}
