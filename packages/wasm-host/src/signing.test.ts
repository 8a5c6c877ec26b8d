import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createPackageFiles } from './package-files.js';
import {
  createFileManifest,
  formatKeyFile,
  generateSigningKey,
  parseKeyFile,
  publicKeyOf,
  signPackage,
  verifyPackage,
} from './signing.js';

const enc = (s: string) => new TextEncoder().encode(s);
const base = () =>
  createPackageFiles(
    {
      'package.toml': enc('[package]\nname = "x"\n'),
      'plugin.wasm': enc('\0asm-component'),
      'docs/readme.md': enc('hi'),
    },
    'pkg',
  );

describe('package signing', () => {
  const { privateKey, publicKey } = generateSigningKey();

  it('verifies a good signature and returns the signer', () => {
    const signed = signPackage(base(), privateKey).package;
    const signer = verifyPackage(signed, [publicKey]);
    expect(signer.keyId).toBe(publicKey.keyId);
    expect(signer.manifestDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('signs every file except package.sig, sorted by path', () => {
    expect(createFileManifest(base()).files.map((f) => f.path)).toEqual([
      'docs/readme.md',
      'package.toml',
      'plugin.wasm',
    ]);
  });

  it.each([
    [
      'a tampered package.toml',
      'package.toml',
      enc('[package]\nname = "x"\ncapabilities = ["network"]\n'),
      'WASM_FILE_CHANGED',
    ],
    ['a tampered component', 'plugin.wasm', enc('\0asm-component!'), 'WASM_FILE_CHANGED'],
    ['an extra file next to the component', 'evil.wasm', enc('\0asm'), 'WASM_FILE_UNSIGNED'],
  ])('rejects %s', (_name, path, bytes, problem) => {
    const files = new Map(signPackage(base(), privateKey).package.files);
    files.set(path, bytes);
    const e = thrownBy(() => verifyPackage(createPackageFiles(files), [publicKey]));
    expect(e.code).toBeTrustCode('WASM_SIGNATURE_INVALID');
    expect(e.problems).toEqual([expect.objectContaining({ code: problem, path })]);
  });

  it('rejects a missing signed file', () => {
    const files = new Map(signPackage(base(), privateKey).package.files);
    files.delete('docs/readme.md');
    expect(thrownBy(() => verifyPackage(createPackageFiles(files), [publicKey])).problems[0]).toHaveTrustCode(
      'WASM_FILE_MISSING',
    );
  });

  it('rejects an untrusted key, an unsigned package and a forged signature', () => {
    const other = generateSigningKey();
    const signed = signPackage(base(), privateKey).package;
    expect(thrownBy(() => verifyPackage(signed, [other.publicKey])).code).toBeTrustCode('WASM_KEY_UNTRUSTED');
    expect(thrownBy(() => verifyPackage(base(), [publicKey])).code).toBeTrustCode('WASM_UNSIGNED');
    // a signature made by another key but claiming the trusted key's id
    const forged = signPackage(base(), { ...other.privateKey, keyId: publicKey.keyId }).package;
    expect(thrownBy(() => verifyPackage(forged, [publicKey])).code).toBeTrustCode('WASM_SIGNATURE_INVALID');
  });

  it('round-trips versioned key files and refuses tampered ones', () => {
    const priv = parseKeyFile(formatKeyFile(privateKey));
    expect(priv.kind).toBe('private');
    expect(parseKeyFile(formatKeyFile(publicKeyOf(privateKey)))).toEqual(publicKey);
    const doc = JSON.parse(formatKeyFile(publicKey));
    expect(doc).toMatchObject({ format: 'trust-key', v: 1, alg: 'ed25519', keyId: publicKey.keyId });
    expect(thrownBy(() => parseKeyFile(JSON.stringify({ ...doc, keyId: '0000000000000000' }))).code).toBeTrustCode(
      'WASM_KEY_INVALID',
    );
    expect(thrownBy(() => parseKeyFile(JSON.stringify({ ...doc, v: 2 }))).code).toBeTrustCode('WASM_KEY_INVALID');
  });
});
