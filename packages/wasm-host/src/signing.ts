import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { Problem } from '@trust/core';
import { wasmError } from './errors.js';
import { canonicalJson, sha256Hex } from './hash.js';
import { createPackageFiles, type PackageFiles } from './package-files.js';

/** The signature file inside a package. It is the only file the signed manifest does not list. */
export const SIGNATURE_FILE = 'package.sig';
/** Domain separation: signed bytes start with this line, so a package signature is never valid for anything else. */
export const SIGNATURE_CONTEXT = 'trust-wasm-package-v1';

/** A public key the host trusts, with its id (the first 16 hex digits of SHA-256 of the raw key). */
export interface PublicSigningKey {
  readonly kind: 'public';
  readonly alg: 'ed25519';
  readonly keyId: string;
  /** The 32-byte raw Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

/** A private signing key (keep it secret; the key file is written with mode 0600 by the CLI). */
export interface PrivateSigningKey extends Omit<PublicSigningKey, 'kind'> {
  readonly kind: 'private';
  /** The 32-byte raw Ed25519 seed. */
  readonly privateKey: Uint8Array;
}

/** One file of the signed manifest. */
export interface ManifestFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** The canonical list of every file in a package except `package.sig`, sorted by path. */
export interface FileManifest {
  readonly v: 1;
  readonly files: readonly ManifestFile[];
}

/** Who signed a package, as returned by `verifyPackage`. */
export interface VerifiedSigner {
  readonly keyId: string;
  readonly alg: 'ed25519';
  readonly publicKey: Uint8Array;
  /** SHA-256 of the canonical file manifest that was signed. */
  readonly manifestDigest: string;
}

interface SignatureFile {
  format: 'trust-package-signature';
  v: 1;
  alg: 'ed25519';
  context: string;
  keyId: string;
  manifest: FileManifest;
  signature: string;
}

const b64u = (b: Uint8Array): string => Buffer.from(b).toString('base64url');
const fromB64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));

function keyIdOf(publicKey: Uint8Array): string {
  return sha256Hex(publicKey).slice(0, 16);
}

function publicKeyObject(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64u(raw) }, format: 'jwk' });
}

/**
 * Creates a new Ed25519 key pair.
 *
 * @example
 * const { privateKey, publicKey } = generateSigningKey();
 * writeFileSync('me.key', formatKeyFile(privateKey), { mode: 0o600 });
 * writeFileSync('me.pub', formatKeyFile(publicKey));
 */
export function generateSigningKey(): { privateKey: PrivateSigningKey; publicKey: PublicSigningKey } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const pub = new Uint8Array(Buffer.from(jwk.x as string, 'base64url'));
  const seed = new Uint8Array(Buffer.from(jwk.d as string, 'base64url'));
  const keyId = keyIdOf(pub);
  return {
    privateKey: Object.freeze({ kind: 'private', alg: 'ed25519', keyId, publicKey: pub, privateKey: seed }),
    publicKey: Object.freeze({ kind: 'public', alg: 'ed25519', keyId, publicKey: pub }),
  };
}

/** The public half of a key. */
export function publicKeyOf(key: PrivateSigningKey | PublicSigningKey): PublicSigningKey {
  return Object.freeze({ kind: 'public', alg: 'ed25519', keyId: key.keyId, publicKey: key.publicKey });
}

/**
 * Serialises a key as a versioned `trust-key` JSON file (`v: 1`, algorithm, key id, base64 key).
 */
export function formatKeyFile(key: PrivateSigningKey | PublicSigningKey): string {
  const body: Record<string, unknown> = {
    format: 'trust-key',
    v: 1,
    alg: key.alg,
    kind: key.kind,
    keyId: key.keyId,
    publicKey: Buffer.from(key.publicKey).toString('base64'),
  };
  if (key.kind === 'private') body.privateKey = Buffer.from(key.privateKey).toString('base64');
  return `${JSON.stringify(body, null, 2)}\n`;
}

/**
 * Parses a `trust-key` file. Throws `WASM_KEY_INVALID` for another format, version or algorithm,
 * a wrong key length, or a key id that does not match the key.
 */
export function parseKeyFile(text: string): PrivateSigningKey | PublicSigningKey {
  const bad = (why: string) =>
    wasmError('WASM_KEY_INVALID', `not a valid trust key file: ${why}`, {
      hint: 'create keys with generateSigningKey() or `trust keygen`',
    });
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw bad('not JSON');
  }
  if (doc.format !== 'trust-key') throw bad('format is not "trust-key"');
  if (doc.v !== 1) throw bad(`unsupported version ${JSON.stringify(doc.v)}`);
  if (doc.alg !== 'ed25519') throw bad(`unsupported algorithm ${JSON.stringify(doc.alg)}`);
  if (typeof doc.publicKey !== 'string') throw bad('publicKey missing');
  const pub = fromB64(doc.publicKey);
  if (pub.length !== 32) throw bad('publicKey is not 32 bytes');
  const keyId = keyIdOf(pub);
  if (doc.keyId !== keyId) throw bad('keyId does not match the public key');
  if (doc.kind === 'public') return Object.freeze({ kind: 'public', alg: 'ed25519', keyId, publicKey: pub });
  if (doc.kind !== 'private' || typeof doc.privateKey !== 'string')
    throw bad('kind must be "public" or "private" with privateKey');
  const seed = fromB64(doc.privateKey);
  if (seed.length !== 32) throw bad('privateKey is not 32 bytes');
  const derived = createPublicKey(
    createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64u(pub), d: b64u(seed) }, format: 'jwk' }),
  ).export({ format: 'jwk' }).x;
  if (derived !== b64u(pub)) throw bad('privateKey does not belong to publicKey');
  return Object.freeze({ kind: 'private', alg: 'ed25519', keyId, publicKey: pub, privateKey: seed });
}

/**
 * The canonical manifest of a package: path, size and SHA-256 of **every** file except
 * `package.sig`, sorted by path. Nothing else is skipped.
 */
export function createFileManifest(pkg: PackageFiles): FileManifest {
  const files = [...pkg.files.entries()]
    .filter(([path]) => path !== SIGNATURE_FILE)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, bytes]) => Object.freeze({ path, size: bytes.length, sha256: sha256Hex(bytes) }));
  return Object.freeze({ v: 1, files: Object.freeze(files) });
}

function signedBytes(manifest: FileManifest): Buffer {
  return Buffer.from(`${SIGNATURE_CONTEXT}\n${canonicalJson(manifest)}`, 'utf8');
}

/**
 * Signs a package: returns the `package.sig` text and the package with it added (replacing any
 * previous signature).
 *
 * @example
 * const signed = signPackage(await readPackageDir('./greeter'), privateKey);
 * writeFileSync('./greeter/package.sig', signed.signature);
 */
export function signPackage(pkg: PackageFiles, key: PrivateSigningKey): { signature: string; package: PackageFiles } {
  const manifest = createFileManifest(pkg);
  const privateKey = createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: b64u(key.publicKey), d: b64u(key.privateKey) },
    format: 'jwk',
  });
  const sig = sign(null, signedBytes(manifest), privateKey);
  const file: SignatureFile = {
    format: 'trust-package-signature',
    v: 1,
    alg: 'ed25519',
    context: SIGNATURE_CONTEXT,
    keyId: key.keyId,
    manifest,
    signature: sig.toString('base64'),
  };
  const signature = `${JSON.stringify(file, null, 2)}\n`;
  const files = new Map(pkg.files);
  files.set(SIGNATURE_FILE, new Uint8Array(Buffer.from(signature, 'utf8')));
  return { signature, package: createPackageFiles(files, pkg.source) };
}

function parseSignatureFile(bytes: Uint8Array): SignatureFile {
  const bad = (why: string) =>
    wasmError('WASM_SIGNATURE_INVALID', `package.sig is malformed: ${why}`, {
      hint: 're-sign the package with signPackage() or `trust package sign`',
    });
  let doc: SignatureFile;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString('utf8')) as SignatureFile;
  } catch {
    throw bad('not JSON');
  }
  if (doc.format !== 'trust-package-signature') throw bad('format is not "trust-package-signature"');
  if (doc.v !== 1) throw bad(`unsupported version ${JSON.stringify(doc.v)}`);
  if (doc.alg !== 'ed25519') throw bad(`unsupported algorithm ${JSON.stringify(doc.alg)}`);
  if (doc.context !== SIGNATURE_CONTEXT) throw bad(`wrong context ${JSON.stringify(doc.context)}`);
  if (typeof doc.keyId !== 'string' || typeof doc.signature !== 'string') throw bad('keyId or signature missing');
  const m = doc.manifest;
  if (m?.v !== 1 || !Array.isArray(m.files)) throw bad('manifest missing');
  for (const f of m.files) {
    if (typeof f?.path !== 'string' || typeof f.size !== 'number' || typeof f.sha256 !== 'string')
      throw bad('manifest entry malformed');
  }
  return doc;
}

/**
 * Verifies a package's signature against trusted keys and returns the signer. Checks, in order:
 * a `package.sig` exists (`WASM_UNSIGNED`); it is well-formed; its key id is among
 * `trustedKeys` (`WASM_KEY_UNTRUSTED`); the Ed25519 signature over the signed file manifest is
 * valid; and the manifest equals the package's actual files (every changed, extra or missing
 * file is listed in `problems`) — any failure there is `WASM_SIGNATURE_INVALID`.
 *
 * @example
 * const signer = verifyPackage(pkg, [publicKey]);
 * console.log(`signed by ${signer.keyId}`);
 */
export function verifyPackage(pkg: PackageFiles, trustedKeys: readonly PublicSigningKey[]): VerifiedSigner {
  const sigBytes = pkg.files.get(SIGNATURE_FILE);
  if (!sigBytes) {
    throw wasmError('WASM_UNSIGNED', `package ${pkg.source} has no ${SIGNATURE_FILE}`, {
      hint: 'sign it with signPackage() / `trust package sign`, or load with requireSignature: false',
    });
  }
  const doc = parseSignatureFile(sigBytes);
  const key = trustedKeys.find((k) => k.keyId === doc.keyId);
  if (!key) {
    throw wasmError('WASM_KEY_UNTRUSTED', `package ${pkg.source} is signed by key ${doc.keyId}, which is not trusted`, {
      hint:
        'add that public key to trustedKeys if you trust its owner ' +
        `(trusted: ${trustedKeys.map((k) => k.keyId).join(', ') || 'none'})`,
    });
  }
  const manifest: FileManifest = {
    v: 1,
    files: doc.manifest.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
  };
  const ok = verify(null, signedBytes(manifest), publicKeyObject(key.publicKey), Buffer.from(doc.signature, 'base64'));
  if (!ok)
    throw wasmError(
      'WASM_SIGNATURE_INVALID',
      `package ${pkg.source}: the signature does not verify with key ${key.keyId}`,
      { hint: 're-sign the package' },
    );
  const actual = createFileManifest(pkg);
  const problems: Problem[] = [];
  const signed = new Map(manifest.files.map((f) => [f.path, f]));
  for (const f of actual.files) {
    const s = signed.get(f.path);
    if (!s)
      problems.push({
        code: 'WASM_FILE_UNSIGNED',
        path: f.path,
        message: `${f.path} is not covered by the signature`,
        hint: 'remove the file or re-sign the package',
      });
    else if (s.sha256 !== f.sha256 || s.size !== f.size)
      problems.push({
        code: 'WASM_FILE_CHANGED',
        path: f.path,
        message: `${f.path} changed after signing`,
        hint: 'restore the signed file or re-sign the package',
      });
    signed.delete(f.path);
  }
  for (const path of signed.keys())
    problems.push({
      code: 'WASM_FILE_MISSING',
      path,
      message: `${path} is signed but missing`,
      hint: 'restore the file or re-sign the package',
    });
  if (problems.length > 0) {
    throw wasmError(
      'WASM_SIGNATURE_INVALID',
      `package ${pkg.source} does not match its signature: ${problems.map((p) => p.message).join('; ')}`,
      { problems, hint: problems[0]?.hint },
    );
  }
  return Object.freeze({
    keyId: key.keyId,
    alg: 'ed25519',
    publicKey: key.publicKey,
    manifestDigest: sha256Hex(canonicalJson(manifest)),
  });
}
