import { createHash } from 'node:crypto';
import { TrustError, canonicalJson } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { ToolDefinition } from '../gate/tool-definition.js';
import { decodeBase64UrlStrict } from './base64url.js';
import { publicKeyFromDidKey, verifyDidSignature, type AgentIdentity } from './did-key.js';

/** Format version of attestations. */
export const ATTESTATION_VERSION = 1;
/** Most attestations one file stores. */
export const MAX_ATTESTATIONS = 1000;
const DOMAIN = 'trust-attestation-v1\n';
const PREFIX = 'attestation:';
const SKEW_MS = 5 * 60 * 1000;

/** A signed statement by `issuer` that `subject` holds `role` (within `scope`) until `expires_at`. */
export interface Attestation {
  readonly v: 1;
  readonly issuer: string;
  readonly subject: string;
  readonly role: string;
  readonly scope: readonly string[];
  readonly issued_at: string;
  readonly expires_at: string | null;
  /** Ed25519 by the issuer's did:key over the domain tag + JCS of the other fields, base64url. */
  readonly signature: string;
}

const invalid = (why: string) =>
  new TrustError('ATTESTATION_INVALID', `the attestation is invalid: ${why}`, {
    hint: 'pass an attestation exactly as adf.attestation_issue returned it',
  });

const signingBytes = (a: Omit<Attestation, 'signature'>) =>
  new TextEncoder().encode(
    DOMAIN +
      canonicalJson({
        v: a.v,
        issuer: a.issuer,
        subject: a.subject,
        role: a.role,
        scope: a.scope,
        issued_at: a.issued_at,
        expires_at: a.expires_at,
      }),
  );

/** Checks shape, DIDs and the issuer's signature; `now` decides expiry. Throws `ATTESTATION_*`. */
export function verifyAttestation(candidate: unknown, now: number): Attestation {
  if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) throw invalid('not an object');
  const a = candidate as Record<string, unknown>;
  const keys = ['v', 'issuer', 'subject', 'role', 'scope', 'issued_at', 'expires_at', 'signature'];
  const extra = Object.keys(a).filter((k) => !keys.includes(k));
  if (extra.length > 0) throw invalid(`unknown field ${extra[0]!.slice(0, 40)}`);
  if (a['v'] !== ATTESTATION_VERSION) throw invalid(`v must be ${ATTESTATION_VERSION}`);
  for (const k of ['issuer', 'subject'] as const) {
    try {
      publicKeyFromDidKey(a[k] as string);
    } catch {
      throw invalid(`${k} is not an Ed25519 did:key`);
    }
  }
  if (typeof a['role'] !== 'string' || !/^[\w.:-]{1,100}$/.test(a['role']))
    throw invalid('role must be 1-100 word characters');
  const scope = a['scope'];
  if (!Array.isArray(scope) || scope.length > 32 || scope.some((s) => typeof s !== 'string' || s.length > 200))
    throw invalid('scope must be at most 32 strings of at most 200 characters');
  const issued = typeof a['issued_at'] === 'string' ? Date.parse(a['issued_at']) : Number.NaN;
  if (!Number.isFinite(issued)) throw invalid('issued_at is not a time');
  if (issued > now + SKEW_MS) throw invalid('issued_at is in the future');
  const expires =
    a['expires_at'] === null ? null : typeof a['expires_at'] === 'string' ? Date.parse(a['expires_at']) : Number.NaN;
  if (expires !== null && !Number.isFinite(expires)) throw invalid('expires_at is not a time or null');
  const sig = typeof a['signature'] === 'string' ? decodeBase64UrlStrict(a['signature']) : undefined;
  if (sig === undefined) throw invalid('the signature is not canonical base64url');
  const att = a as unknown as Attestation;
  if (!verifyDidSignature(att.issuer, signingBytes(att), sig).allow)
    throw invalid('the signature does not verify for the issuer');
  if (expires !== null && expires <= now)
    throw new TrustError('ATTESTATION_EXPIRED', `the attestation expired at ${att.expires_at}`, {
      hint: 'ask the issuer for a new one',
    });
  return att;
}

/** Signs an attestation about `subject` with the agent's identity. */
export function issueAttestation(
  identity: AgentIdentity,
  input: { subject: string; role: string; scope?: readonly string[]; expiresAt?: string | null },
  now: number,
): Attestation {
  const body = {
    v: 1 as const,
    issuer: identity.did,
    subject: input.subject,
    role: input.role,
    scope: [...(input.scope ?? [])],
    issued_at: new Date(now).toISOString(),
    expires_at: input.expiresAt ?? null,
  };
  const att = { ...body, signature: Buffer.from(identity.sign(signingBytes(body))).toString('base64url') };
  return verifyAttestation(att, now);
}

function stored(adf: AdfFile): Attestation[] {
  const rows = adf.db
    .prepare("SELECT value FROM adf_identity WHERE purpose LIKE 'attestation:%' AND encryption_algo = 'plain'")
    .all() as Array<{ value: Buffer }>;
  return rows.map((r) => JSON.parse(r.value.toString('utf8')) as Attestation);
}

/**
 * The `adf.attestation_list` / `attestation_add` / `attestation_issue` code methods. Attestations
 * are kept as plain `attestation:<hash>` rows of `adf_identity` (public data; code can neither read
 * nor write those rows through get/set_identity). `add` verifies the issuer's signature and expiry
 * first; `list` verifies every row again and says which are still valid; `issue` signs with the
 * agent's key (authorized code only by default: `restricted_methods`).
 *
 * @example
 * registry.register(...createAttestationTools({ identity: () => identity, now: Date.now }));
 */
export function createAttestationTools(deps: {
  readonly identity: () => AgentIdentity | undefined;
  readonly now?: () => number;
}): ToolDefinition<never>[] {
  const now = deps.now ?? Date.now;
  const did = { type: 'string', maxLength: 200 };
  const list: ToolDefinition<{ subject?: string; issuer?: string }> = {
    name: 'attestation_list',
    description: 'Code only: the stored attestations (optionally by subject or issuer), each re-verified.',
    inputSchema: { type: 'object', properties: { subject: did, issuer: did }, additionalProperties: false },
    run(args, ctx) {
      const t = now();
      return stored(ctx.adf)
        .filter(
          (a) =>
            (args.subject === undefined || a.subject === args.subject) &&
            (args.issuer === undefined || a.issuer === args.issuer),
        )
        .slice(0, 100)
        .map((a) => {
          try {
            verifyAttestation(a, t);
            return { attestation: a, valid: true };
          } catch (e) {
            return { attestation: a, valid: false, code: (e as TrustError).code };
          }
        });
    },
  };
  const add: ToolDefinition<{ attestation: unknown }> = {
    name: 'attestation_add',
    description: 'Code only: verify an attestation (issuer signature, expiry) and store it.',
    inputSchema: {
      type: 'object',
      properties: { attestation: { type: 'object' } },
      required: ['attestation'],
      additionalProperties: false,
    },
    run(args, ctx) {
      const att = verifyAttestation(args.attestation, now());
      const bytes = Buffer.from(JSON.stringify(att));
      if (bytes.length > 8192) throw invalid('larger than 8 KiB');
      const id = createHash('sha256').update(bytes).digest('hex');
      const count = (
        ctx.adf.db.prepare("SELECT count(*) AS n FROM adf_identity WHERE purpose LIKE 'attestation:%'").get() as {
          n: number;
        }
      ).n;
      if (count >= MAX_ATTESTATIONS)
        throw new TrustError('ATTESTATION_LIMIT', `this file already holds ${MAX_ATTESTATIONS} attestations`);
      ctx.adf.db
        .prepare(
          "INSERT OR IGNORE INTO adf_identity (purpose, value, encryption_algo, code_access) VALUES (?, ?, 'plain', 0)",
        )
        .run(PREFIX + id, bytes);
      ctx.audit.record({
        principal: ctx.principal,
        action: 'attestation.add',
        target: att.subject,
        decision: 'allow',
        rule: 'attestation',
        details: { issuer: att.issuer, role: att.role, id },
      });
      return { id, issuer: att.issuer, subject: att.subject, role: att.role };
    },
  };
  const issue: ToolDefinition<{ subject: string; role: string; scope?: string[]; expires_at?: string }> = {
    name: 'attestation_issue',
    description: 'Code only (authorized by default): sign an attestation about another DID with the agent key.',
    inputSchema: {
      type: 'object',
      properties: {
        subject: did,
        role: { type: 'string', maxLength: 100 },
        scope: { type: 'array', maxItems: 32, items: { type: 'string', maxLength: 200 } },
        expires_at: { type: 'string', maxLength: 40 },
      },
      required: ['subject', 'role'],
      additionalProperties: false,
    },
    run(args, ctx) {
      const identity = deps.identity();
      if (identity === undefined)
        throw new TrustError('IDENTITY_MISSING', 'this agent has no open identity to sign with', {
          hint: 'the host opens the agent with its identity keys',
        });
      const att = issueAttestation(
        identity,
        {
          subject: args.subject,
          role: args.role,
          ...(args.scope ? { scope: args.scope } : {}),
          ...(args.expires_at ? { expiresAt: args.expires_at } : {}),
        },
        now(),
      );
      ctx.audit.record({
        principal: ctx.principal,
        action: 'attestation.issue',
        target: att.subject,
        decision: 'allow',
        rule: 'attestation',
        details: { role: att.role },
      });
      return att;
    },
  };
  return [list, add, issue] as unknown as ToolDefinition<never>[];
}
