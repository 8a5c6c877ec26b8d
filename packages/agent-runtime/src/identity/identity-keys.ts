import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { TrustError } from '@trust/core';
import { createEnvelopeKeyPair, envelopeKeyFromPkcs8, type EnvelopeKeyPair } from './envelope.js';
import type { SealTo } from './identity-store.js';

/** Format version of an identity key file. */
export const IDENTITY_KEYS_VERSION = 1;
const KIND = 'trust-identity-keys';

/**
 * The X25519 keys agent identities are sealed to: the owner's and the runtime's. The runtime key
 * opens an agent's signing key when the agent runs; the owner key can open it elsewhere.
 */
export interface IdentityKeys {
  readonly owner: EnvelopeKeyPair;
  readonly runtime: EnvelopeKeyPair;
  /** The public halves, as `provisionIdentity` and `createIdentityTools` take them. */
  readonly sealTo: SealTo;
}

/** Wraps two key pairs as {@link IdentityKeys}. */
export function identityKeysOf(owner: EnvelopeKeyPair, runtime: EnvelopeKeyPair): IdentityKeys {
  return Object.freeze({
    owner,
    runtime,
    sealTo: Object.freeze({ owner: owner.publicKey, runtime: runtime.publicKey }),
  });
}

/**
 * Fresh owner and runtime keys, in memory only (tests, throwaway workspaces).
 *
 * @example
 * const keys = createIdentityKeys();
 * provisionIdentity(adf, keys.sealTo);
 */
export function createIdentityKeys(): IdentityKeys {
  return identityKeysOf(createEnvelopeKeyPair(), createEnvelopeKeyPair());
}

const bad = (file: string, why: string, hint: string) =>
  new TrustError('IDENTITY_KEYS_INVALID', `identity key file ${file} ${why}`, { hint });

/**
 * Reads the identity keys from `file`, or creates the file with fresh keys (mode 0600, never
 * through an existing file or symlink) when it does not exist. A file readable by group or others
 * is refused rather than trusted, and so is one that is not a v1 key file.
 *
 * @example
 * const keys = loadOrCreateIdentityKeys(join(trustHome, 'identity-keys.json'));
 * const identity = provisionAgentIdentity(adf, keys);
 */
export function loadOrCreateIdentityKeys(file: string): IdentityKeys {
  let text: string | undefined;
  try {
    const st = statSync(file);
    if ((st.mode & 0o077) !== 0)
      throw bad(file, `is readable by others (mode ${(st.mode & 0o777).toString(8)})`, `run: chmod 600 ${file}`);
    if (st.size > 16_384) throw bad(file, 'is too large to be a key file', 'restore the key file from a backup');
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== undefined) return parseKeyFile(file, text);
  const keys = createIdentityKeys();
  const der = (k: EnvelopeKeyPair) => k.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url');
  const body = { v: IDENTITY_KEYS_VERSION, kind: KIND, owner: der(keys.owner), runtime: der(keys.runtime) };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // 'wx' refuses a planted file or symlink; mode 0600 at creation, chmod for odd umasks.
  writeFileSync(file, `${JSON.stringify(body)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return keys;
}

function parseKeyFile(file: string, text: string): IdentityKeys {
  const hint = 'restore the key file from a backup; without it the agents sealed to it cannot sign';
  let doc: { v?: unknown; kind?: unknown; owner?: unknown; runtime?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    throw bad(file, 'is not JSON', hint);
  }
  if (doc === null || typeof doc !== 'object' || doc.kind !== KIND || doc.v !== IDENTITY_KEYS_VERSION)
    throw bad(file, `is not a v${IDENTITY_KEYS_VERSION} ${KIND} file`, hint);
  const key = (name: 'owner' | 'runtime'): EnvelopeKeyPair => {
    const v = doc[name];
    try {
      if (typeof v !== 'string' || !/^[A-Za-z0-9_-]+$/.test(v)) throw new Error('not base64url');
      const pair = envelopeKeyFromPkcs8(Buffer.from(v, 'base64url'));
      if (pair.privateKey.asymmetricKeyType !== 'x25519') throw new Error('not X25519');
      return pair;
    } catch (cause) {
      throw new TrustError('IDENTITY_KEYS_INVALID', `identity key file ${file}: the ${name} key is invalid`, {
        hint,
        cause,
      });
    }
  };
  return identityKeysOf(key('owner'), key('runtime'));
}
