import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentIdentity } from '@trust/agent-runtime';
import { CliError } from './cli-error.js';
import { trustHome } from './trust-home.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The owner's identity file: `<trust home>/owner-identity.json`, version 1, mode 0600. */
export function ownerIdentityPath(env: Env): string {
  return join(trustHome(env), 'owner-identity.json');
}

/**
 * The identity of the person using this trust home: it signs the `.adf` files they create or
 * accept, so a file is theirs exactly while it carries their signature over its current content.
 * Absent: `undefined` (nothing has been signed here yet).
 *
 * @example
 * const owner = await loadOwnerIdentity(process.env); // undefined before the first agent new / review --accept
 */
export async function loadOwnerIdentity(env: Env): Promise<AgentIdentity | undefined> {
  const path = ownerIdentityPath(env);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isFile() || st.size > 16 * 1024)
    throw new CliError('CLI_OWNER_IDENTITY_INVALID', `${path} is not a small regular file`, {
      hint: 'remove it; trust makes a new owner identity on the next `trust agent new`',
    });
  const { parseJsonWithLimits } = await import('@trust/core');
  const doc = parseJsonWithLimits(readFileSync(path, 'utf8'), { maxDepth: 4, maxBytes: 16 * 1024 }) as {
    v?: unknown;
    pkcs8?: unknown;
  };
  if (doc.v !== 1 || typeof doc.pkcs8 !== 'string')
    throw new CliError('CLI_OWNER_IDENTITY_INVALID', `${path} is not a version-1 owner identity`, {
      hint: 'remove it; trust makes a new owner identity on the next `trust agent new`',
    });
  const { createIdentity } = await import('@trust/agent-runtime');
  return createIdentity(Buffer.from(doc.pkcs8, 'base64'));
}

/** Loads the owner identity, creating it (0600, in a 0700 trust home, never over an existing file) on first use. */
export async function loadOrCreateOwnerIdentity(env: Env): Promise<AgentIdentity> {
  const existing = await loadOwnerIdentity(env);
  if (existing) return existing;
  const { createIdentity } = await import('@trust/agent-runtime');
  const identity = createIdentity();
  mkdirSync(trustHome(env), { recursive: true, mode: 0o700 });
  const fd = openSync(ownerIdentityPath(env), 'wx', 0o600);
  try {
    const doc = {
      v: 1,
      kind: 'trust-owner-identity',
      did: identity.did,
      pkcs8: identity.exportPkcs8().toString('base64'),
    };
    writeSync(fd, `${JSON.stringify(doc)}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(ownerIdentityPath(env), 0o600);
  return identity;
}
