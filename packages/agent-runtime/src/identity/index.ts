// `@trust/agent-runtime/identity`: did:key identities, sealed envelopes, secrets and .adf reviews.
export {
  AgentIdentity,
  createIdentity,
  didKeyFromPublicKey,
  publicKeyFromDidKey,
  signWithIdentity,
  verifyDidSignature,
} from './did-key.js';
export { createEnvelopeKeyPair, envelopeKeyFromPkcs8, openEnvelope, sealEnvelope } from './envelope.js';
export type { Envelope, EnvelopeKeyPair } from './envelope.js';
export { claimSharedAdf, loadIdentity, provisionIdentity, readSecret, storeSecret } from './identity-store.js';
export type { SealTo } from './identity-store.js';
export { createIdentityTools } from './identity-tools.js';
export { openAgentIdentity, provisionAgentIdentity } from './agent-identity.js';
export type { AgentIdentityState } from './agent-identity.js';
export {
  IDENTITY_KEYS_VERSION,
  createIdentityKeys,
  identityKeysOf,
  loadOrCreateIdentityKeys,
} from './identity-keys.js';
export type { IdentityKeys } from './identity-keys.js';
export { identityStatusOf, identityStatusTool } from './identity-status.js';
export {
  ATTESTATION_VERSION,
  MAX_ATTESTATIONS,
  createAttestationTools,
  issueAttestation,
  verifyAttestation,
} from './attestations.js';
export type { Attestation } from './attestations.js';
export type { IdentityStatus } from './identity-status.js';
export { computeAdfContentHash, createAdfReviewStore, reviewKeyOf, signAdfContent } from './adf-review.js';
export type { AdfReviewKey, AdfReviewStore } from './adf-review.js';
export { acceptAdfReview, describeAdfReview, diffAdfReviews } from './adf-review-surface.js';
export type { AcceptAdfReviewOptions, AdfReviewChange, AdfReviewSurface } from './adf-review-surface.js';
