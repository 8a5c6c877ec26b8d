import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const fixture = (name: 'tiny' | 'mini' | 'probe'): Uint8Array => new Uint8Array(readFileSync(join(pkgDir, '.fixtures', `${name}.wasm`)));

/** A fresh temp dir, removed by the returned cleanup. */
export function tempDir(prefix = 'wasm-host-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a package directory: package.toml plus files. */
export function writePackage(dir: string, toml: string, files: Record<string, Uint8Array | string>): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.toml'), toml);
  for (const [p, b] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), b);
  }
  return dir;
}

export function manifestToml(capabilities: string[], extra = ''): string {
  return `[package]\nname = "tiny"\nversion = "1.0.0"\n\n[wasm]\ncomponent = "tiny.wasm"\ncapabilities = ${JSON.stringify(capabilities)}\n${extra}`;
}
