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
export { computeAdfContentHash, createAdfReviewStore, reviewKeyOf, signAdfContent } from './adf-review.js';
export type { AdfReviewKey, AdfReviewStore } from './adf-review.js';
export { acceptAdfReview, describeAdfReview, diffAdfReviews } from './adf-review-surface.js';
export type { AcceptAdfReviewOptions, AdfReviewChange, AdfReviewSurface } from './adf-review-surface.js';
