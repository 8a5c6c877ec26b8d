import type { AdfFile } from '../adf/adf-file.js';
import type { ToolDefinition } from '../gate/tool-definition.js';

/** What `adf.identity_status()` tells agent code: protection state only, never values or keys. */
export interface IdentityStatus {
  /** `adf_did`, or null before the file has an identity. */
  readonly did: string | null;
  /** Whether a signing key is stored. */
  readonly provisioned: boolean;
  /** How the signing key is kept: `envelope` (sealed), another storage kind, or null when absent. */
  readonly signingKey: {
    readonly storage: string;
    readonly slots: readonly string[];
    readonly password: boolean;
  } | null;
  /** Secret rows besides key material: how many, and how many agent code may read. */
  readonly secrets: { readonly total: number; readonly codeAccess: number; readonly sealed: number };
  /** Stored attestations (see `adf.attestation_list`). */
  readonly attestations: number;
}

interface Row {
  purpose: string;
  value: Buffer;
  encryption_algo: string;
  code_access: number;
}

/** Slot labels of a sealed envelope row (never its content); [] when the row is not an envelope. */
function slotsOf(row: Row): { slots: string[]; password: boolean } {
  try {
    const env = JSON.parse(row.value.toString('utf8')) as { slots?: Array<{ kind?: unknown; label?: unknown }> };
    const slots = (env.slots ?? []).slice(0, 16);
    return {
      slots: slots.filter((s) => s.kind === 'x25519').map((s) => String(s.label).slice(0, 40)),
      password: slots.some((s) => s.kind === 'scrypt'),
    };
  } catch {
    return { slots: [], password: false };
  }
}

/**
 * The identity protection state of a file: whether it has a DID, how its signing key is sealed
 * (slot labels, password slot) and counts of secret rows. No value, key or purpose name is returned.
 *
 * @example
 * identityStatusOf(adf); // { did: 'did:key:z6Mk…', provisioned: true, signingKey: { storage: 'envelope', … }, … }
 */
export function identityStatusOf(adf: AdfFile): IdentityStatus {
  const rows = adf.db.prepare('SELECT purpose, value, encryption_algo, code_access FROM adf_identity').all() as Row[];
  const signing = rows.find((r) => r.purpose === 'crypto:signing:private_key');
  const others = rows.filter((r) => !r.purpose.startsWith('crypto:') && !r.purpose.startsWith('attestation:'));
  const signingKey =
    signing === undefined
      ? null
      : signing.encryption_algo === 'env:identity'
        ? { storage: 'envelope', ...slotsOf(signing) }
        : { storage: signing.encryption_algo, slots: [], password: false };
  return {
    did: adf.meta.get('adf_did') ?? null,
    provisioned: signing !== undefined,
    signingKey,
    secrets: {
      total: others.length,
      codeAccess: others.filter((r) => r.code_access === 1).length,
      sealed: others.filter((r) => r.encryption_algo !== 'plain').length,
    },
    attestations: rows.filter((r) => r.purpose.startsWith('attestation:')).length,
  };
}

/**
 * `adf.identity_status()`: the code method (gated by `code_execution.identity_status`). It reads
 * only protection state ({@link identityStatusOf}), so it needs no key.
 */
export const identityStatusTool: ToolDefinition<Record<string, never>, IdentityStatus> = {
  name: 'identity_status',
  description: 'Code only: the identity protection state (DID, how the key is sealed, secret counts); never values.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: (_args, ctx) => identityStatusOf(ctx.adf),
};
