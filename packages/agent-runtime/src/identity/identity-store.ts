import type { TrustErrorCode } from '@trust/core';
import type { KeyObject } from 'node:crypto';
import { TrustError, deniedError, deny } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import { type AgentIdentity, createIdentity } from './did-key.js';
import { openEnvelope, openLegacyPasswordRow, sealEnvelope, type Envelope } from './envelope.js';

/** Purposes that hold key material: never readable or writable from agent code. */
export const KEY_MATERIAL = /^crypto:(signing|envelope|kdf):/;
/** Purposes the runtime keeps for itself (verified attestations): code uses the attestation_* methods. */
const RUNTIME_ROWS = /^attestation:/;

/** Who an identity is sealed to: the owner's and the runtime's X25519 public keys. */
export interface SealTo {
  readonly owner: Uint8Array;
  readonly runtime: Uint8Array;
}

interface IdentityRow {
  purpose: string;
  value: Buffer;
  encryption_algo: string;
  salt: Buffer | null;
  kdf_params: string | null;
  code_access: number;
}

/**
 * Gives a file a fresh Ed25519 identity: the public key in the clear, the private key sealed in
 * the `identity` envelope to owner and runtime (never a password slot), and `adf_did` in meta.
 * Also how a recipient claims a shared file: a new identity under their own keys, and the old
 * owner signature is dropped.
 *
 * @example
 * const id = provisionIdentity(adf, { owner: owner.publicKey, runtime: runtime.publicKey });
 */
export function provisionIdentity(adf: AdfFile, sealTo: SealTo): AgentIdentity {
  const identity = createIdentity();
  const env = sealEnvelope('identity', identity.exportPkcs8(), {
    recipients: [
      { label: 'owner', publicKey: sealTo.owner },
      { label: 'runtime', publicKey: sealTo.runtime },
    ],
  });
  adf.transaction(() => {
    const put = adf.db.prepare(
      'INSERT INTO adf_identity (purpose, value, encryption_algo, code_access) VALUES (?, ?, ?, 0) ON ' +
        'CONFLICT(purpose) DO UPDATE SET value = excluded.value, encryption_algo = excluded.encryption_algo, ' +
        'salt = NULL, kdf_params = NULL, code_access = 0',
    );
    put.run('crypto:signing:public_key', Buffer.from(identity.publicKey), 'plain');
    put.run('crypto:signing:private_key', Buffer.from(JSON.stringify(env)), 'env:identity');
    adf.meta.set('adf_did', identity.did, { runtime: true, protection: 'readonly' });
    adf.db.prepare("DELETE FROM adf_meta WHERE key = 'adf_owner_sig'").run();
  });
  return identity;
}

/**
 * A recipient claims a shared file: every earlier identity row (keys, envelope slots, sealed
 * secrets and credentials, anything planted there), the agent DID and the owner DID and
 * signature are removed, then a fresh identity is provisioned under the recipient's own keys, all
 * in one transaction. Nothing of the author's identity survives to be used or impersonated.
 *
 * @example
 * const identity = claimSharedAdf(adf, { owner: me.publicKey, runtime: runtime.publicKey });
 */
export function claimSharedAdf(adf: AdfFile, sealTo: SealTo): AgentIdentity {
  return adf.transaction(() => {
    adf.db.prepare('DELETE FROM adf_identity').run();
    adf.db.prepare("DELETE FROM adf_meta WHERE key IN ('adf_did', 'adf_owner_did', 'adf_owner_sig')").run();
    return provisionIdentity(adf, sealTo);
  });
}

/**
 * Opens the agent's identity with the runtime's (or owner's) X25519 private key. A file sealed for
 * someone else gives `IDENTITY_SEALED`: it cannot sign as the agent. A public key that does not
 * match `adf_did` gives `IDENTITY_MISMATCH`.
 */
export function loadIdentity(adf: AdfFile, key: KeyObject): AgentIdentity {
  const row = adf.db.prepare("SELECT * FROM adf_identity WHERE purpose = 'crypto:signing:private_key'").get() as
    | IdentityRow
    | undefined;
  if (!row)
    throw new TrustError('IDENTITY_MISSING', 'this file has no identity yet', { hint: 'call provisionIdentity' });
  if (row.encryption_algo !== 'env:identity')
    throw new TrustError(
      'IDENTITY_SEALED',
      `the signing key is stored as ${row.encryption_algo}, not in the identity envelope`,
    );
  let pkcs8: Uint8Array;
  try {
    pkcs8 = openEnvelope(JSON.parse(row.value.toString('utf8')) as Envelope, { privateKey: key });
  } catch (cause) {
    throw new TrustError(
      'IDENTITY_SEALED',
      'the identity is sealed to another owner or runtime; claim the file to give it a new identity',
      { cause },
    );
  }
  const identity = createIdentity(pkcs8);
  if (identity.did !== adf.meta.get('adf_did'))
    throw new TrustError('IDENTITY_MISMATCH', 'the sealed key does not match adf_did');
  return identity;
}

/** Stores a secret (e.g. an MCP credential) sealed in its own envelope. Owner API: no key-material purposes. */
export function storeSecret(
  adf: AdfFile,
  purpose: string,
  value: Uint8Array,
  options: { sealTo: SealTo; password?: string; codeAccess?: boolean },
): void {
  if (KEY_MATERIAL.test(purpose))
    throw new TrustError('IDENTITY_KEY_MATERIAL', `${purpose} is key material; use provisionIdentity`);
  const env = sealEnvelope(`credentials:${purpose}`, value, {
    recipients: [
      { label: 'owner', publicKey: options.sealTo.owner },
      { label: 'runtime', publicKey: options.sealTo.runtime },
    ],
    ...(options.password !== undefined ? { password: options.password } : {}),
  });
  adf.db
    .prepare(
      'INSERT INTO adf_identity (purpose, value, encryption_algo, code_access) VALUES (?, ?, ?, ?) ON ' +
        'CONFLICT(purpose) DO UPDATE SET value = excluded.value, encryption_algo = excluded.encryption_algo, ' +
        'salt = NULL, kdf_params = NULL, code_access = excluded.code_access',
    )
    .run(purpose, Buffer.from(JSON.stringify(env)), 'env:credentials', options.codeAccess ? 1 : 0);
}

/** Reads a secret: envelope rows with a key or password, legacy PBKDF2 rows with a password, plain rows as-is. */
export function readSecret(
  adf: AdfFile,
  purpose: string,
  key: { privateKey: KeyObject } | { password: string },
): Uint8Array | undefined {
  const row = adf.db.prepare('SELECT * FROM adf_identity WHERE purpose = ?').get(purpose) as IdentityRow | undefined;
  if (!row) return undefined;
  if (row.encryption_algo === 'plain') return Uint8Array.from(row.value);
  if (row.encryption_algo.startsWith('env:'))
    return openEnvelope(JSON.parse(row.value.toString('utf8')) as Envelope, key);
  if (row.encryption_algo === 'aes-256-gcm' && 'password' in key && row.salt) {
    const params = JSON.parse(row.kdf_params ?? '{}') as { iterations?: number };
    return openLegacyPasswordRow(row.value, row.salt, key.password, params.iterations ?? 100_000);
  }
  throw new TrustError('ENVELOPE_SEALED', `${purpose} cannot be opened with this key`);
}

/**
 * What agent code may do with identity rows (`get_identity` / `set_identity`): never key
 * material, whatever `code_access` says or who asks; reads only rows with `code_access = 1`;
 * writes create `code_access = 1` rows and never overwrite a row code cannot read.
 */
export function createCodeIdentityAccess(adf: AdfFile, runtime: { privateKey: KeyObject; sealTo: SealTo }) {
  const refuse = (code: TrustErrorCode, reason: string) =>
    deniedError(deny(code, reason, { rule: 'identity-code-access' }));
  const row = (purpose: string) =>
    adf.db.prepare('SELECT code_access FROM adf_identity WHERE purpose = ?').get(purpose) as
      | { code_access: number }
      | undefined;
  return {
    get(purpose: string): string | undefined {
      if (KEY_MATERIAL.test(purpose))
        throw refuse('IDENTITY_KEY_MATERIAL', `${purpose} is key material and never readable from code`);
      const r = row(purpose);
      if (!r) return undefined;
      if (r.code_access !== 1)
        throw refuse('IDENTITY_CODE_ACCESS', `${purpose} is not readable from code (code_access is off)`);
      const v = readSecret(adf, purpose, { privateKey: runtime.privateKey });
      return v === undefined ? undefined : Buffer.from(v).toString('utf8');
    },
    set(purpose: string, value: string): void {
      if (KEY_MATERIAL.test(purpose))
        throw refuse('IDENTITY_KEY_MATERIAL', `${purpose} is key material and never writable from code`);
      if (RUNTIME_ROWS.test(purpose))
        throw refuse('IDENTITY_CODE_ACCESS', `${purpose} is kept by the runtime; use adf.attestation_add`);
      const r = row(purpose);
      if (r && r.code_access !== 1)
        throw refuse('IDENTITY_CODE_ACCESS', `${purpose} is not writable from code (code_access is off)`);
      storeSecret(adf, purpose, Buffer.from(String(value), 'utf8'), { sealTo: runtime.sealTo, codeAccess: true });
    },
  };
}
