export { WASM_ERROR_CODES, wasmError } from './errors.js';
export type { WasmErrorCode } from './errors.js';
export { MANIFEST_FORMAT, normalizePackagePath, parseManifest } from './manifest.js';
export type { PackageManifest } from './manifest.js';
export { DEFAULT_PACKAGE_LIMITS, createPackageFiles, readPackageDir } from './package-files.js';
export type { PackageFiles, PackageLimits } from './package-files.js';
export { PACKAGE_EXTENSION, packPackage, readPackageArchive, unpackPackage } from './archive.js';
export {
  SIGNATURE_CONTEXT,
  SIGNATURE_FILE,
  createFileManifest,
  formatKeyFile,
  generateSigningKey,
  parseKeyFile,
  publicKeyOf,
  signPackage,
  verifyPackage,
} from './signing.js';
export type { FileManifest, ManifestFile, PrivateSigningKey, PublicSigningKey, VerifiedSigner } from './signing.js';
export { describeComponent, diffInterfaces, interfaceFromWit } from './component-info.js';
export type { ComponentDescription, ComponentInterface } from './component-info.js';
export { checkImports } from './import-requirements.js';
export type { ImportCheck } from './import-requirements.js';
export { planImports } from './import-plan.js';
export type { ImportPlan, PreopenPlan } from './import-plan.js';
export { createGuestFilesystem } from './fs/guest-filesystem.js';
export type { PinnedPreopen } from './fs/guest-filesystem.js';
export { pinGrantDirs } from './fs/pin-grants.js';
export type { PinnedDir } from './fs/pin-grants.js';
export { inspectPackage } from './inspect.js';
export type { PackageInspection } from './inspect.js';
export { createPluginHost } from './plugin-host.js';
export type { LoadOptions, Plugin, PluginHost, PluginHostOptions, PluginLimits } from './plugin-host.js';
export type { PluginSource } from './package-source.js';
