import { describe, expect, it } from 'vitest';
import * as mod from './index.js';

describe('@trust/wasm-host public API', () => {
  it('exports exactly this list', () => {
    expect(Object.keys(mod).sort()).toEqual([
      'DEFAULT_PACKAGE_LIMITS',
      'MANIFEST_FORMAT',
      'PACKAGE_EXTENSION',
      'SIGNATURE_CONTEXT',
      'SIGNATURE_FILE',
      'WASM_ERROR_CODES',
      'checkImports',
      'createFileManifest',
      'createGuestFilesystem',
      'createPackageFiles',
      'createPluginHost',
      'describeComponent',
      'diffInterfaces',
      'formatKeyFile',
      'generateSigningKey',
      'inspectPackage',
      'interfaceFromWit',
      'normalizePackagePath',
      'packPackage',
      'parseKeyFile',
      'parseManifest',
      'pinGrantDirs',
      'planImports',
      'publicKeyOf',
      'readPackageArchive',
      'readPackageDir',
      'signPackage',
      'unpackPackage',
      'verifyPackage',
      'wasmError',
    ]);
  });
});
