import { isTrustError, type Principal } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { AgentIdentity } from './did-key.js';
import type { IdentityKeys } from './identity-keys.js';
import { loadIdentity, provisionIdentity } from './identity-store.js';

// Provisioning is done for the owner, by the runtime that creates or first opens the file.
const RUNTIME: Principal = { kind: 'owner', id: 'runtime' };

/**
 * Gives a new agent file its identity: an Ed25519 key and `did:key` (`adf_did`), the private key
 * sealed to the owner and runtime keys. Audited as `identity.provision` in the file's own log.
 * Every creator of an agent calls it right after `createAdf` (the CLI's `agent new`, templates, the demo).
 *
 * @example
 * const adf = createAdf('helper.adf', { template });
 * const { did } = provisionAgentIdentity(adf, loadOrCreateIdentityKeys(keyFile));
 */
export function provisionAgentIdentity(adf: AdfFile, keys: IdentityKeys, by: Principal = RUNTIME): AgentIdentity {
  const identity = provisionIdentity(adf, keys.sealTo);
  adf.audit.record({
    principal: by,
    action: 'identity.provision',
    target: identity.did,
    decision: 'allow',
    rule: 'identity',
    details: { sealedTo: ['owner', 'runtime'] },
  });
  return identity;
}

/** What {@link openAgentIdentity} found. */
export type AgentIdentityState =
  | { readonly kind: 'loaded'; readonly identity: AgentIdentity }
  | { readonly kind: 'provisioned'; readonly identity: AgentIdentity }
  | { readonly kind: 'missing' }
  | { readonly kind: 'sealed'; readonly code: string; readonly reason: string };

/**
 * Opens the identity of an agent file with the runtime key. A file without one is provisioned
 * only when `provision` is true (the owner's own file); a file sealed to other keys, or whose key
 * does not match `adf_did`, is reported as `sealed` (it runs, but cannot sign or receive).
 *
 * @example
 * const s = openAgentIdentity(adf, keys, { provision: true });
 * if (s.kind === 'loaded' || s.kind === 'provisioned') console.log(s.identity.did);
 */
export function openAgentIdentity(
  adf: AdfFile,
  keys: IdentityKeys,
  options: { readonly provision: boolean },
): AgentIdentityState {
  try {
    return { kind: 'loaded', identity: loadIdentity(adf, keys.runtime.privateKey) };
  } catch (e) {
    if (isTrustError(e, 'IDENTITY_MISSING') && adf.meta.get('adf_did') === undefined) {
      if (!options.provision) return { kind: 'missing' };
      return { kind: 'provisioned', identity: provisionAgentIdentity(adf, keys) };
    }
    if (isTrustError(e)) return { kind: 'sealed', code: e.code, reason: e.message };
    throw e;
  }
}
