import type { AgentIdentity } from '../identity/did-key.js';

/**
 * The 32-byte Ed25519 seed of an identity, from which its X25519 decryption key is derived.
 * Runtime-only: agent code never reaches identities, so it never reaches this.
 */
export function identitySeed(identity: AgentIdentity): Uint8Array {
  const der = identity.exportPkcs8();
  return new Uint8Array(der.subarray(der.length - 32));
}
