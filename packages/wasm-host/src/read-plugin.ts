import { wasmError } from './errors.js';
import { parseManifest, type PackageManifest } from './manifest.js';
import type { PackageLimits } from './package-files.js';
import { readSource, type PluginSource } from './package-source.js';
import { SIGNATURE_FILE, verifyPackage, type PublicSigningKey, type VerifiedSigner } from './signing.js';

/** A plugin read once: its component bytes, and for a package its manifest and verified signer. */
export interface ReadPlugin {
  readonly signer: VerifiedSigner | undefined;
  readonly manifest: PackageManifest | undefined;
  readonly component: Uint8Array;
}

/**
 * The first steps of `host.load`: reads the source once, verifies a package's signature (always
 * when one is present; required with `requireSignature`, which a bare component cannot meet),
 * parses its manifest and picks out the component it names.
 */
export async function readPlugin(
  source: PluginSource,
  o: { limits: PackageLimits; requireSignature: boolean; trustedKeys: readonly PublicSigningKey[] },
): Promise<ReadPlugin> {
  const loaded = await readSource(source, o.limits);
  let signer: VerifiedSigner | undefined;
  let manifest: PackageManifest | undefined;
  let component: Uint8Array;
  if (loaded.kind === 'package') {
    const hasSig = loaded.pkg.files.has(SIGNATURE_FILE);
    if (o.requireSignature || hasSig) signer = verifyPackage(loaded.pkg, o.trustedKeys);
    const toml = loaded.pkg.files.get('package.toml');
    if (!toml)
      throw wasmError('WASM_MANIFEST_INVALID', `package ${loaded.pkg.source} has no package.toml`, {
        hint: 'add a package.toml (see the README for the format)',
      });
    manifest = parseManifest(Buffer.from(toml).toString('utf8'));
    const bytes = loaded.pkg.files.get(manifest.component);
    if (!bytes)
      throw wasmError(
        'WASM_MANIFEST_INVALID',
        `package.toml names component ${JSON.stringify(manifest.component)}, which is not in the package`,
        { hint: 'fix [wasm].component or add the file' },
      );
    component = bytes;
  } else {
    if (o.requireSignature)
      throw wasmError('WASM_UNSIGNED', `${loaded.source} is a bare component, which cannot carry a signature`, {
        hint: 'load a signed package, or create the host with requireSignature: false',
      });
    component = loaded.bytes;
  }
  return { signer, manifest, component };
}
