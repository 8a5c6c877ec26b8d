import { lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PluginReport } from '../control/index.js';
import type { PublicSigningKey } from '@trust/wasm-host';
import { toReport } from './studio-plugins.js';

/** What an uploaded package may unpack to: far below the package defaults (256 MiB, 10 000 files). */
export const UPLOAD_PACKAGE_LIMITS = Object.freeze({ maxEntries: 256, maxTotalBytes: 32 * 1024 * 1024, maxRatio: 50 });

/**
 * Takes an uploaded `.tpkg` into the workspace plugins folder, with the package code only: the
 * archive is read in memory under tighter caps ({@link UPLOAD_PACKAGE_LIMITS}; unsafe paths refused), the manifest and
 * component are inspected, a signature that does not verify is refused, and the package is
 * unpacked (staged, then renamed) into `<pluginsDir>/<package name>`. An existing entry of that
 * name is never replaced. Every refusal is a coded TrustError (e.g. WASM_PACKAGE_MALFORMED).
 *
 * @example
 * const report = await uploadStudioPlugin(layout.plugins, 'hello.tpkg', bytes, trustedKeys);
 */
export async function uploadStudioPlugin(
  pluginsDir: string,
  fileName: string,
  bytes: Uint8Array,
  trustedKeys: readonly PublicSigningKey[],
): Promise<PluginReport> {
  const { inspectPackage, readPackageArchive, unpackPackage } = await import('@trust/wasm-host');
  const { TrustError } = await import('@trust/core');
  const files = await readPackageArchive(bytes, UPLOAD_PACKAGE_LIMITS, fileName);
  const report = await inspectPackage(files, { trustedKeys });
  if (report.signature.status === 'invalid')
    throw new TrustError(
      'WASM_SIGNATURE_INVALID',
      `the signature of ${report.name} does not verify: ${report.signature.reason}`,
      {
        hint: 'sign the package again (trust package sign) and rebuild the .tpkg',
      },
    );
  const dest = join(pluginsDir, report.name);
  const taken = await lstat(dest).then(
    () => true,
    () => false,
  );
  if (taken)
    throw new TrustError('STUDIO_PLUGIN_EXISTS', `the workspace already has a plugin named "${report.name}"`, {
      hint: 'remove or rename the existing one in the plugins folder, or bump the package name',
    });
  await mkdir(pluginsDir, { recursive: true });
  await unpackPackage(bytes, dest, UPLOAD_PACKAGE_LIMITS);
  return toReport(report.name, report);
}
