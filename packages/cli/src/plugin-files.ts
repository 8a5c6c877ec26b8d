import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PackageFiles, PrivateSigningKey, PublicSigningKey } from '@trust/wasm-host';
import { CliError } from './cli-error.js';
import { readInputFile } from './read-input-file.js';

/** A package read into memory, and whether it came from a directory or a `.tpkg` archive. */
export interface LoadedPackage {
  readonly path: string;
  readonly kind: 'dir' | 'archive';
  readonly files: PackageFiles;
}

/** Reads a package directory or `.tpkg` archive (`WASM_PACKAGE_NOT_FOUND` when neither). */
export async function readPackage(cwd: string, path: string): Promise<LoadedPackage> {
  const full = resolve(cwd, path);
  const { readPackageArchive, readPackageDir } = await import('@trust/wasm-host');
  const st = await stat(full).catch(() => undefined);
  if (!st)
    throw new CliError('WASM_PACKAGE_NOT_FOUND', `no plugin package at ${full}`, {
      hint: 'pass a package directory (with package.toml) or a .tpkg archive; create one with `trust package init`',
    });
  if (st.isDirectory()) return { path: full, kind: 'dir', files: await readPackageDir(full) };
  return {
    path: full,
    kind: 'archive',
    files: await readPackageArchive(new Uint8Array(await readFile(full)), {}, full),
  };
}

/** Reads a `trust-key` file and checks that it is the kind the command needs. */
export async function readKey(cwd: string, path: string, kind: 'private'): Promise<PrivateSigningKey>;
export async function readKey(cwd: string, path: string, kind: 'public'): Promise<PublicSigningKey>;
export async function readKey(
  cwd: string,
  path: string,
  kind: 'private' | 'public',
): Promise<PrivateSigningKey | PublicSigningKey> {
  const { parseKeyFile, publicKeyOf } = await import('@trust/wasm-host');
  const key = parseKeyFile(await readInputFile(cwd, path, 'key file'));
  if (kind === 'private' && key.kind !== 'private') {
    throw new CliError('WASM_KEY_INVALID', `${path} is a public key; signing needs the private key`, {
      hint: 'pass the .key file that `trust keygen` wrote, not the .pub file',
    });
  }
  // A private key file also names its public key, so either works as a trusted key.
  return kind === 'public' ? publicKeyOf(key) : key;
}

/** Reads every `--trusted` key file. */
export async function readTrustedKeys(cwd: string, paths: readonly string[]): Promise<PublicSigningKey[]> {
  return Promise.all(paths.map((p) => readKey(cwd, p, 'public')));
}
