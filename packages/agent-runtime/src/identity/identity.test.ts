import { createCipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf, type AdfFile } from '../adf/adf-file.js';
import { createToolGate } from '../gate/tool-gate.js';
import { createToolRegistry } from '../gate/tool-definition.js';
import { computeAdfContentHash, createAdfReviewStore, reviewKeyOf, signAdfContent } from './adf-review.js';
import { base58btcDecode, base58btcEncode } from './base58.js';
import {
  createIdentity,
  didKeyFromPublicKey,
  publicKeyFromDidKey,
  signWithIdentity,
  verifyDidSignature,
} from './did-key.js';
import { createEnvelopeKeyPair, openEnvelope, sealEnvelope } from './envelope.js';
import { claimSharedAdf, loadIdentity, provisionIdentity, readSecret, storeSecret } from './identity-store.js';
import { createIdentityTools } from './identity-tools.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const newAdf = (tools: unknown[] = []): AdfFile =>
  createAdf(join(mkdtempSync(join(tmpdir(), 'id-')), 'a.adf'), { template: { v: 1, tools } });

describe('did:key', () => {
  it('matches the W3C did:key test vector', () => {
    // did:key spec example: the Ed25519 key 2e6fcce3…
    const did = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';
    const pub = publicKeyFromDidKey(did);
    expect(pub).toHaveLength(32);
    expect(didKeyFromPublicKey(pub)).toBe(did);
  });

  it('round-trips base58 with leading zeros', () => {
    const b = Uint8Array.of(0, 0, 1, 2, 255);
    expect(base58btcDecode(base58btcEncode(b))).toEqual(b);
    expect(base58btcDecode('0OIl')).toBeUndefined();
  });

  it.each([
    'did:web:x',
    'did:key:zzzz',
    'did:key:z' + base58btcEncode(Uint8Array.of(0x12, 0x00, ...new Array(32).fill(1))),
    'did:key:z0',
  ])('rejects %s', (d) => {
    expect(() => publicKeyFromDidKey(d)).toThrowTrustError('IDENTITY_DID_INVALID');
  });

  it('signs and verifies Uint8Array payloads; tampering and wrong DIDs deny', () => {
    const a = createIdentity();
    const b = createIdentity();
    const sig = signWithIdentity(a, bytes('{"a":1}'));
    expect(sig).toHaveLength(64);
    expect(verifyDidSignature(a.did, bytes('{"a":1}'), sig).allow).toBe(true);
    expect(verifyDidSignature(a.did, bytes('{"a":2}'), sig)).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('IDENTITY_SIGNATURE_INVALID'),
    });
    expect(verifyDidSignature(b.did, bytes('{"a":1}'), sig).allow).toBe(false);
    expect(verifyDidSignature('did:key:nope', bytes('x'), sig)).toHaveTrustCode('IDENTITY_DID_INVALID');
    expect(JSON.stringify(a)).toBe(JSON.stringify({ did: a.did }));
    expect(Object.keys(a)).not.toContain('privateKey');
  });
});

describe('envelopes', () => {
  const owner = createEnvelopeKeyPair();
  const runtime = createEnvelopeKeyPair();
  const stranger = createEnvelopeKeyPair();

  it('opens for each recipient, never for others; tampering fails', () => {
    const env = sealEnvelope('credentials:x', bytes('secret'), {
      recipients: [
        { label: 'owner', publicKey: owner.publicKey },
        { label: 'runtime', publicKey: runtime.publicKey },
      ],
    });
    expect(new TextDecoder().decode(openEnvelope(env, { privateKey: owner.privateKey }))).toBe('secret');
    expect(new TextDecoder().decode(openEnvelope(env, { privateKey: runtime.privateKey }))).toBe('secret');
    expect(() => openEnvelope(env, { privateKey: stranger.privateKey })).toThrowTrustError('ENVELOPE_SEALED');
    expect(() => openEnvelope({ ...env, name: 'credentials:y' }, { privateKey: owner.privateKey })).toThrowTrustError(
      'ENVELOPE_SEALED',
    );
    const ct = Buffer.from(env.ct, 'base64url');
    ct[0] = (ct[0] ?? 0) ^ 1;
    expect(() => openEnvelope({ ...env, ct: ct.toString('base64url') }, { privateKey: owner.privateKey })).toThrow();
  });

  it('a slot moved into another envelope does not open it (per-envelope domain separation)', () => {
    const e1 = sealEnvelope('credentials:a', bytes('one'), {
      recipients: [{ label: 'owner', publicKey: owner.publicKey }],
    });
    const e2 = sealEnvelope('credentials:a', bytes('two'), {
      recipients: [{ label: 'owner', publicKey: owner.publicKey }],
    });
    expect(() => openEnvelope({ ...e2, slots: e1.slots }, { privateKey: owner.privateKey })).toThrowTrustError(
      'ENVELOPE_SEALED',
    );
  });

  it('the share-password slot uses scrypt N=2^17 r=8 p=1; the identity envelope refuses it', () => {
    const env = sealEnvelope('credentials:api', bytes('k'), { recipients: [], password: 'correct horse' });
    expect(env.slots[0]).toMatchObject({ kind: 'scrypt', N: 131072, r: 8, p: 1 });
    expect(new TextDecoder().decode(openEnvelope(env, { password: 'correct horse' }))).toBe('k');
    expect(() => openEnvelope(env, { password: 'wrong' })).toThrowTrustError('ENVELOPE_SEALED');
    expect(() =>
      sealEnvelope('identity', bytes('k'), {
        recipients: [{ label: 'owner', publicKey: owner.publicKey }],
        password: 'x',
      }),
    ).toThrowTrustError('IDENTITY_PASSWORD_SLOT_REFUSED');
  }, 120_000); // three scrypt runs at the required cost (128 MiB each)
});

describe('identity in the .adf file', () => {
  const owner = createEnvelopeKeyPair();
  const runtime = createEnvelopeKeyPair();
  const sealTo = { owner: owner.publicKey, runtime: runtime.publicKey };

  it('provisions a sealed identity that only its owner/runtime can load', () => {
    const adf = newAdf();
    const id = provisionIdentity(adf, sealTo);
    expect(adf.meta.get('adf_did')).toBe(id.did);
    expect(loadIdentity(adf, runtime.privateKey).did).toBe(id.did);
    const raw = adf.db
      .prepare("SELECT value FROM adf_identity WHERE purpose = 'crypto:signing:private_key'")
      .pluck()
      .get() as Buffer;
    expect(raw.includes(Buffer.from(id.exportPkcs8()))).toBe(false);
    adf.close();
  });

  it('a shared file cannot impersonate the agent; the recipient claims it under a new identity', () => {
    const adf = newAdf();
    const original = provisionIdentity(adf, sealTo);
    const recipient = createEnvelopeKeyPair();
    expect(() => loadIdentity(adf, recipient.privateKey)).toThrowTrustError('IDENTITY_SEALED');
    const claimed = claimSharedAdf(adf, { owner: recipient.publicKey, runtime: recipient.publicKey });
    expect(claimed.did).not.toBe(original.did);
    expect(loadIdentity(adf, recipient.privateKey).did).toBe(claimed.did);
    expect(() => loadIdentity(adf, runtime.privateKey)).toThrowTrustError('IDENTITY_SEALED');
    adf.close();
  });

  it("claiming removes every earlier identity row, the agent DID and the author's owner DID and signature", () => {
    const adf = newAdf();
    provisionIdentity(adf, sealTo);
    signAdfContent(adf, createIdentity());
    // What an author leaves behind (or plants) with raw SQL: a credential and a fake envelope slot.
    adf.db
      .prepare("INSERT INTO adf_identity (purpose, value, encryption_algo) VALUES ('mcp:gh:TOKEN', x'01', 'plain')")
      .run();
    adf.db
      .prepare(
        "INSERT INTO adf_identity (purpose, value, encryption_algo) VALUES ('crypto:envelope:author', x'02', 'plain')",
      )
      .run();
    const recipient = createEnvelopeKeyPair();
    const claimed = claimSharedAdf(adf, { owner: recipient.publicKey, runtime: recipient.publicKey });
    const purposes = adf.db.prepare('SELECT purpose FROM adf_identity ORDER BY purpose').pluck().all();
    expect(purposes).toEqual(['crypto:signing:private_key', 'crypto:signing:public_key']);
    expect(adf.meta.get('adf_owner_did')).toBeUndefined();
    expect(adf.meta.get('adf_owner_sig')).toBeUndefined();
    expect(adf.meta.get('adf_did')).toBe(claimed.did);
    adf.close();
  });

  it('reads legacy PBKDF2-SHA512 password rows', () => {
    const adf = newAdf();
    const salt = randomBytes(32);
    const key = pbkdf2Sync('pw', salt, 100_000, 32, 'sha512');
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    const ct = Buffer.concat([c.update('legacy-secret'), c.final()]);
    adf.db
      .prepare(
        'INSERT INTO adf_identity (purpose, value, encryption_algo, salt, kdf_params) VALUES ' +
          "('mcp:gh:TOKEN', ?, 'aes-256-gcm', ?, '{\"iterations\":100000}')",
      )
      .run(Buffer.concat([iv, ct, c.getAuthTag()]), salt);
    expect(new TextDecoder().decode(readSecret(adf, 'mcp:gh:TOKEN', { password: 'pw' }))).toBe('legacy-secret');
    expect(() => readSecret(adf, 'mcp:gh:TOKEN', { password: 'nope' })).toThrowTrustError('ENVELOPE_SEALED');
    adf.close();
  });

  it(
    'get_identity/set_identity: key material is never readable or writable from code; ' + 'code_access is respected',
    async () => {
      const adf = newAdf();
      provisionIdentity(adf, sealTo);
      storeSecret(adf, 'mcp:gh:TOKEN', bytes('owner-only'), { sealTo, codeAccess: false });
      storeSecret(adf, 'api:shared', bytes('code-ok'), { sealTo, codeAccess: true });
      const gate = createToolGate({
        adf,
        registry: createToolRegistry(createIdentityTools({ privateKey: runtime.privateKey, sealTo })),
      });
      const call = (name: string, args: unknown, origin: 'code' | 'authorized-code' = 'code') =>
        gate.call(name, args, { origin });
      const code = async (p: Promise<unknown>) =>
        p.then(
          () => 'ok',
          (e: { code: string }) => e.code,
        );
      for (const purpose of [
        'crypto:signing:private_key',
        'crypto:signing:public_key',
        'crypto:envelope:identity',
        'crypto:kdf:salt',
      ]) {
        expect(await code(call('get_identity', { purpose }, 'authorized-code'))).toBeTrustCode('IDENTITY_KEY_MATERIAL');
        expect(await code(call('set_identity', { purpose, value: 'x' }, 'authorized-code'))).toBeTrustCode(
          'IDENTITY_KEY_MATERIAL',
        );
      }
      expect(await code(call('get_identity', { purpose: 'mcp:gh:TOKEN' }))).toBeTrustCode('IDENTITY_CODE_ACCESS');
      expect(await code(call('set_identity', { purpose: 'mcp:gh:TOKEN', value: 'overwrite' }))).toBeTrustCode(
        'IDENTITY_CODE_ACCESS',
      );
      expect(await call('get_identity', { purpose: 'api:shared' })).toBe('code-ok');
      await call('set_identity', { purpose: 'mine', value: 'v' });
      expect(await call('get_identity', { purpose: 'mine' })).toBe('v');
      expect(await code(gate.call('get_identity', { purpose: 'mine' }, { origin: 'llm' }))).toBeTrustCode(
        'TOOL_NOT_DECLARED',
      );
      adf.close();
    },
  );

  it('code_execution.get_identity=false disables the method', async () => {
    const adf = createAdf(join(mkdtempSync(join(tmpdir(), 'id-')), 'a.adf'), {
      template: { v: 1, code_execution: { get_identity: false } },
    });
    const gate = createToolGate({
      adf,
      registry: createToolRegistry(createIdentityTools({ privateKey: runtime.privateKey, sealTo })),
    });
    await expect(gate.call('get_identity', { purpose: 'x' }, { origin: 'authorized-code' })).rejects.toHaveTrustCode(
      'CODE_METHOD_DISABLED',
    );
    adf.close();
  });
});

describe('foreign-file review', () => {
  it('is keyed on content hash + verified owner signature, not on a declared id', () => {
    const owner = createIdentity();
    const adf = newAdf();
    signAdfContent(adf, owner);
    const key = reviewKeyOf(adf);
    expect(key.ownerDid).toBe(owner.did);
    const reviews = createAdfReviewStore();
    reviews.accept(key);
    expect(reviews.isAccepted(reviewKeyOf(adf))).toBe(true);

    // same declared id, different behaviour: not accepted
    adf.files.write('evil.ts', 'export const x = 1');
    expect(reviews.isAccepted(reviewKeyOf(adf))).toBe(false);
    expect(reviewKeyOf(adf).ownerDid).toBeNull();

    // a forged signature does not verify
    const other = newAdf();
    other.meta.set('adf_owner_did', owner.did, { runtime: true });
    other.meta.set('adf_owner_sig', Buffer.alloc(64).toString('base64url'), { runtime: true });
    expect(reviewKeyOf(other).ownerDid).toBeNull();
    expect(computeAdfContentHash(other)).toMatch(/^[0-9a-f]{64}$/);
    adf.close();
    other.close();
  });

  it('a valid owner signature respelled (a character outside base64url inserted) does not verify', () => {
    const owner = createIdentity();
    const adf = newAdf();
    signAdfContent(adf, owner);
    const sig = adf.meta.get('adf_owner_sig')!;
    adf.meta.set('adf_owner_sig', `${sig.slice(0, 20)}*${sig.slice(20)}`, { runtime: true });
    expect(Buffer.from(adf.meta.get('adf_owner_sig')!, 'base64url').equals(Buffer.from(sig, 'base64url'))).toBe(true);
    expect(reviewKeyOf(adf).ownerDid).toBeNull();
    adf.close();
  });
});

describe('openAdf review gate', () => {
  it('refuses an unreviewed foreign file, opens it readonly for review, then accepts it by key', async () => {
    const { openAdf } = await import('../adf/adf-file.js');
    const adf = newAdf();
    const path = adf.path;
    adf.close();
    const reviews = createAdfReviewStore();
    expect(() => openAdf(path, { trust: 'foreign', reviews, reviewKeyOf })).toThrowTrustError('ADF_REVIEW_REQUIRED');
    const ro = openAdf(path, { trust: 'foreign', readonly: true, reviews, reviewKeyOf });
    reviews.accept(reviewKeyOf(ro));
    ro.close();
    const ok = openAdf(path, { trust: 'foreign', reviews, reviewKeyOf });
    ok.files.write('changed.ts', 'x');
    ok.close();
    expect(() => openAdf(path, { trust: 'foreign', reviews, reviewKeyOf })).toThrowTrustError('ADF_REVIEW_REQUIRED');
    openAdf(path, { trust: 'owned', reviews, reviewKeyOf }).close();
  });
});
