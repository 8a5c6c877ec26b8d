export { allow, deny, isAllowed, isDenied } from './decision.js';
export type { Allow, Decision, Deny } from './decision.js';
export { TrustError, deniedError, isTrustError, notImplemented } from './error.js';
export type { Problem, TrustErrorOptions } from './error.js';
export { PRINCIPAL_KINDS, createPrincipal } from './principal.js';
export type { Principal, PrincipalKind } from './principal.js';
export type { CapabilityName } from './capability-name.js';
export type { EgressContext, EgressHttpRequest, EgressPeer, EgressPolicy, EgressPolicyRole } from './egress-policy.js';
export type { AuditEvent, AuditInput, AuditSink } from './audit-event.js';
export { formatIp, ipEquals, isIpv4Mapped, parseIp, parseIpWithZone, unmapIpv4 } from './address.js';
export type { IpAddress, ZonedIpAddress } from './address.js';
export { cidrContains, formatCidr, parseCidr } from './cidr.js';
export type { Cidr } from './cidr.js';
export { CAPABILITY_NAMES, CAPABILITY_RISKS, formatCapability } from './capability.js';
export type { Capability, CapabilitySet, EgressTier, FsAccess, FsGrantEntry, FsMode } from './capability.js';
export { parseCapabilities, tryParseCapabilities } from './capability-parse.js';
export { isPathWithin, normalizeAbsolutePath } from './path.js';
export { editDistance, suggest } from './suggest.js';
export { checkOptions, optionProblems } from './options-check.js';
export type { OptionsCheck } from './options-check.js';
export { formatHostRule, matchHostRule, parseHostRule, parseHostRules, tryParseHostRule } from './host-rule.js';
export type { HostRule } from './host-rule.js';
export { COMMON_PUBLIC_SUFFIXES } from './public-suffix.js';
export { chain, denyAll } from './policy-chain.js';
export { allowHosts, denyHosts } from './policy-hosts.js';
export type { AllowHostsOptions } from './policy-hosts.js';
export { injectHeaders } from './policy-inject.js';
export { policyFileSchema } from './policy-file-schema.js';
export type { PolicyFile } from './policy-file-schema.js';
export { parsePolicyFile, parsePolicyText } from './policy-file.js';
export { compilePolicy } from './policy-compile.js';
export type { CompilePolicyOptions, GuardSettings } from './policy-compile.js';
export { canonicalJson } from './canonical-json.js';
export { DEFAULT_MAX_JSON_DEPTH, checkJsonText, checkJsonValue, parseJsonWithLimits } from './json-limits.js';
export type { JsonLimits } from './json-limits.js';
export { sha256Hex } from './sha256.js';
export { GENESIS_HASH, computeEventHash, sealEvent, verifyChain } from './audit-chain.js';
export type { ChainVerdict } from './audit-chain.js';
export { auditDecision, createMemoryAuditSink } from './audit-sink.js';
export type { AuditDecisionInput, MemoryAuditSink } from './audit-sink.js';
export {
  AUDIT_ERROR_CODES,
  CAPABILITY_ERROR_CODES,
  CORE_ERROR_CODES,
  EGRESS_ERROR_CODES,
  POLICY_ERROR_CODES,
} from './error-codes.js';
export type {
  AuditErrorCode,
  CapabilityErrorCode,
  CoreErrorCode,
  EgressErrorCode,
  PolicyErrorCode,
} from './error-codes.js';
export { WASM_ERROR_CODES } from './error-codes-wasm.js';
export type { WasmErrorCode } from './error-codes-wasm.js';
export { SANDBOX_ERROR_CODES } from './error-codes-sandbox.js';
export type { SandboxErrorCode } from './error-codes-sandbox.js';
export { AGENT_STORE_ERROR_CODES } from './error-codes-agent-store.js';
export type { AgentStoreErrorCode } from './error-codes-agent-store.js';
export { AGENT_CODE_ERROR_CODES } from './error-codes-agent-code.js';
export type { AgentCodeErrorCode } from './error-codes-agent-code.js';
export { AGENT_MESSAGING_ERROR_CODES } from './error-codes-agent-messaging.js';
export type { AgentMessagingErrorCode } from './error-codes-agent-messaging.js';
export { AGENT_LOOP_ERROR_CODES } from './error-codes-agent-loop.js';
export type { AgentLoopErrorCode } from './error-codes-agent-loop.js';
export { CLI_ERROR_CODES } from './error-codes-cli.js';
export type { CliErrorCode } from './error-codes-cli.js';
export { TRUST_ERROR_CODES, TRUST_ERROR_CODE_AREAS, isTrustErrorCode } from './trust-error-code.js';
export type { TrustErrorCode } from './trust-error-code.js';
