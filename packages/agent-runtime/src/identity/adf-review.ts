import { decodeBase64UrlStrict } from './base64url.js';
import { canonicalJson, sha256Hex } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { AgentIdentity } from './did-key.js';
import { verifyDidSignature } from './did-key.js';

/** What a review of a foreign file is keyed on: never an id the file declares about itself. */
export interface AdfReviewKey {
  /** SHA-256 over everything that decides behaviour: config, schema objects, files, timers, meta, public key. */
  readonly contentHash: string;
  /** The owner DID whose signature over `contentHash` verified, or null when unsigned or invalid. */
  readonly ownerDid: string | null;
}

const enc = new TextEncoder();

/**
 * The content hash of a file's behaviour-deciding state. Loop history, mail, logs, tasks and audit
 * are data, not behaviour, and are left out so the key stays stable while an agent runs.
 */
export function computeAdfContentHash(adf: AdfFile): string {
  const db = adf.db;
  const doc = {
    v: 1,
    config: JSON.parse(
      db.prepare('SELECT config_json FROM adf_config WHERE id = 1').pluck().get() as string,
    ) as unknown,
    // Every row, whatever its name: an object SQLite would load is behaviour (rootpage aside: VACUUM renumbers).
    schema: db.prepare('SELECT type, name, tbl_name, sql FROM main.sqlite_schema ORDER BY type, name, tbl_name').all(),
    files: (
      db.prepare('SELECT path, content, protection, authorized FROM adf_files ORDER BY path').all() as Array<{
        path: string;
        content: Buffer;
        protection: string;
        authorized: number;
      }>
    ).map((f) => ({
      path: f.path,
      sha256: sha256Hex(new Uint8Array(f.content)),
      protection: f.protection,
      authorized: f.authorized,
    })),
    timers: db.prepare('SELECT schedule_json, payload, scope, lambda, locked FROM adf_timers ORDER BY id').all(),
    meta: db
      .prepare(
        "SELECT key, value, protection FROM adf_meta WHERE key NOT IN ('adf_owner_sig', 'adf_owner_did') ORDER BY key",
      )
      .all(),
    publicKey:
      (db.prepare("SELECT hex(value) FROM adf_identity WHERE purpose = 'crypto:signing:public_key'").pluck().get() as
        | string
        | undefined) ?? null,
  };
  return sha256Hex(canonicalJson(doc as never));
}

/** The owner signs the current content hash; stored in `adf_meta` as `adf_owner_did` and `adf_owner_sig`. */
export function signAdfContent(adf: AdfFile, owner: AgentIdentity): string {
  const hash = computeAdfContentHash(adf);
  const sig = owner.sign(enc.encode(`trust-adf-review-v1:${hash}`));
  adf.meta.set('adf_owner_did', owner.did, { runtime: true, protection: 'readonly' });
  adf.meta.set('adf_owner_sig', Buffer.from(sig).toString('base64url'), { runtime: true, protection: 'readonly' });
  return hash;
}

/**
 * The review key of a file as it is now. A signature over other content, or by no valid key, gives `ownerDid: null`.
 */
export function reviewKeyOf(adf: AdfFile): AdfReviewKey {
  const contentHash = computeAdfContentHash(adf);
  const did = adf.meta.get('adf_owner_did');
  const sig = adf.meta.get('adf_owner_sig');
  if (!did || !sig) return { contentHash, ownerDid: null };
  const bytes = decodeBase64UrlStrict(sig);
  const ok =
    bytes !== undefined && verifyDidSignature(did, enc.encode(`trust-adf-review-v1:${contentHash}`), bytes).allow;
  return { contentHash, ownerDid: ok ? did : null };
}

/** Reviews a person accepted, keyed on content hash + verified owner. One store per host; not global. */
export interface AdfReviewStore {
  accept(key: AdfReviewKey): void;
  isAccepted(key: AdfReviewKey): boolean;
  list(): AdfReviewKey[];
}

/**
 * Creates an in-memory review store (persist `list()` wherever the host keeps settings).
 *
 * @example
 * const reviews = createAdfReviewStore();
 * reviews.accept(reviewKeyOf(adf));
 * reviews.isAccepted(reviewKeyOf(adf)); // true until the file's behaviour changes
 */
export function createAdfReviewStore(initial: readonly AdfReviewKey[] = []): AdfReviewStore {
  const keys = new Map<string, AdfReviewKey>();
  const id = (k: AdfReviewKey) => `${k.contentHash}:${k.ownerDid ?? '-'}`;
  for (const k of initial) keys.set(id(k), k);
  return {
    accept: (k) => {
      keys.set(id(k), { contentHash: k.contentHash, ownerDid: k.ownerDid });
    },
    isAccepted: (k) => keys.has(id(k)),
    list: () => [...keys.values()],
  };
}
