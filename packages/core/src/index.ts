export { allow, deny, isAllowed, isDenied } from './decision.js';
export type { Allow, Decision, Deny } from './decision.js';
export { TrustError, deniedError, isTrustError, notImplemented } from './error.js';
export type { Problem, TrustErrorOptions } from './error.js';
export { PRINCIPAL_KINDS, createPrincipal } from './principal.js';
export type { Principal, PrincipalKind } from './principal.js';
export type { CapabilityName } from './capability-name.js';
export type { EgressContext, EgressHttpRequest, EgressPeer, EgressPolicy } from './egress-policy.js';
export type { AuditEvent, AuditInput, AuditSink } from './audit-event.js';
