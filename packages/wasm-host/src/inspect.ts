import { lstatSync } from 'node:fs';
import { CAPABILITY_RISKS, parseCapabilities, type CapabilityName, type CapabilitySet } from '@trust/core';
import { describeComponent } from './component-info.js';
import { checkImports, type ImportCheck } from './import-requirements.js';
import { parseManifest } from './manifest.js';
import { readSource, type PluginSource } from './package-source.js';
import { SIGNATURE_FILE, verifyPackage, type PublicSigningKey } from './signing.js';

/** What `inspectPackage` reports; the CLI prints it in this order. */
export interface PackageInspection {
  /** Capabilities first: what the plugin may do, each with a one-line risk note. */
  readonly capabilities: readonly { readonly capability: string; readonly risk: string }[];
  /**
   * The effective rights per fs entry, outermost first: `access` is what the plugin gets at and
   * below `path` (up to a more specific entry), `within` the entry it is nested in, and `onHost`
   * what is at the path on this host now (`missing`: the load skips it with `WASM_FS_GRANT_MISSING`;
   * `symlink`, or a `file` for ro/rw: the load refuses it). `[]` without fs entries.
   */
  readonly filesystem: readonly FsRightsRow[];
  readonly name: string;
  readonly version: string;
  readonly interface: string | undefined;
  readonly interfaceVersion: number | undefined;
  readonly signature:
    | { readonly status: 'valid'; readonly keyId: string }
    | { readonly status: 'unsigned' }
    | { readonly status: 'invalid' | 'untrusted-key'; readonly reason: string };
  readonly component: {
    readonly path: string;
    readonly digest: string;
    readonly size: number;
    readonly interfaceHash: string;
  };
  readonly imports: readonly string[];
  readonly exports: readonly string[];
  /**
   * Imports the declared capabilities would not satisfy (assuming the host has an egress policy
   * when `hasEgressPolicy`).
   */
  readonly unsatisfiedImports: readonly ImportCheck[];
}

/** One row of `PackageInspection.filesystem`. */
export interface FsRightsRow {
  readonly path: string;
  readonly access: 'ro' | 'rw' | 'none';
  readonly within?: string;
  readonly onHost: 'dir' | 'file' | 'symlink' | 'missing' | 'other';
}

function fsRows(caps: CapabilitySet): FsRightsRow[] {
  const entries = [...caps.fsGrants].sort((a, b) => a.path.length - b.path.length || a.path.localeCompare(b.path));
  return entries.map((g) => {
    const outer = entries.filter((o) => o.path !== g.path && g.path.startsWith(`${o.path}/`)).pop();
    const st = lstatSync(g.path, { throwIfNoEntry: false });
    const onHost = !st
      ? 'missing'
      : st.isSymbolicLink()
        ? 'symlink'
        : st.isDirectory()
          ? 'dir'
          : st.isFile()
            ? 'file'
            : 'other';
    return { path: g.path, access: g.mode, ...(outer ? { within: `fs:${outer.mode}:${outer.path}` } : {}), onHost };
  });
}

function kindOf(cap: string): CapabilityName {
  return (cap.startsWith('env:') ? 'env' : cap.startsWith('fs:') ? 'fs' : cap) as CapabilityName;
}

/**
 * Inspects a package without running it. Throws only when the package cannot be read or its
 * manifest is invalid; a bad signature is reported, not thrown.
 *
 * @example
 * const report = await inspectPackage('./greeter', { trustedKeys: [publicKey] });
 * for (const c of report.capabilities) console.log(`${c.capability}: ${c.risk}`);
 * for (const f of report.filesystem) console.log(`${f.path}: ${f.access}`); // effective rights
 */
export async function inspectPackage(
  source: PluginSource,
  options: { trustedKeys?: readonly PublicSigningKey[]; hasEgressPolicy?: boolean } = {},
): Promise<PackageInspection> {
  const loaded = await readSource(source);
  if (loaded.kind !== 'package')
    throw new TypeError('inspectPackage needs a package (directory, .tpkg or files), not a bare component');
  const pkg = loaded.pkg;
  const manifest = parseManifest(Buffer.from(pkg.files.get('package.toml') ?? new Uint8Array()).toString('utf8'));
  let signature: PackageInspection['signature'];
  if (!pkg.files.has(SIGNATURE_FILE)) signature = { status: 'unsigned' };
  else {
    try {
      signature = { status: 'valid', keyId: verifyPackage(pkg, options.trustedKeys ?? []).keyId };
    } catch (e) {
      const err = e as { code?: string; message: string };
      signature = { status: err.code === 'WASM_KEY_UNTRUSTED' ? 'untrusted-key' : 'invalid', reason: err.message };
    }
  }
  const bytes = pkg.files.get(manifest.component) ?? new Uint8Array();
  const info = await describeComponent(bytes);
  const caps = parseCapabilities(manifest.capabilities);
  return Object.freeze({
    capabilities: caps.toStrings().map((c) => ({ capability: c, risk: CAPABILITY_RISKS[kindOf(c)] })),
    filesystem: fsRows(caps),
    name: manifest.name,
    version: manifest.version,
    interface: manifest.interface,
    interfaceVersion: manifest.interfaceVersion,
    signature,
    component: { path: manifest.component, digest: info.digest, size: info.size, interfaceHash: info.interface.hash },
    imports: info.imports,
    exports: info.exports,
    unsatisfiedImports: checkImports(info.imports, caps, options.hasEgressPolicy ?? true).filter((c) => !c.satisfied),
  });
}
