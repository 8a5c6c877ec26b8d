import {
  AUDIT_ERROR_CODES,
  CAPABILITY_ERROR_CODES,
  CORE_ERROR_CODES,
  EGRESS_ERROR_CODES,
  POLICY_ERROR_CODES,
} from './error-codes.js';
import type {
  AuditErrorCode,
  CapabilityErrorCode,
  CoreErrorCode,
  EgressErrorCode,
  PolicyErrorCode,
} from './error-codes.js';
import { AGENT_CODE_ERROR_CODES, type AgentCodeErrorCode } from './error-codes-agent-code.js';
import { AGENT_LOOP_ERROR_CODES, type AgentLoopErrorCode } from './error-codes-agent-loop.js';
import { AGENT_MESSAGING_ERROR_CODES, type AgentMessagingErrorCode } from './error-codes-agent-messaging.js';
import { AGENT_STORE_ERROR_CODES, type AgentStoreErrorCode } from './error-codes-agent-store.js';
import { CLI_ERROR_CODES, type CliErrorCode } from './error-codes-cli.js';
import { SANDBOX_ERROR_CODES, type SandboxErrorCode } from './error-codes-sandbox.js';
import { WASM_ERROR_CODES, type WasmErrorCode } from './error-codes-wasm.js';

/**
 * Every stable code a trust error, a problem or a deny decision may carry: the union of every
 * area's list. `TrustError`, `deny`, `Problem` and the test matchers accept only these, so a
 * misspelt code fails to type-check.
 *
 * @example
 * const code: TrustErrorCode = 'EGRESS_PRIVATE_ADDRESS';
 */
export type TrustErrorCode =
  | CoreErrorCode
  | CapabilityErrorCode
  | PolicyErrorCode
  | AuditErrorCode
  | EgressErrorCode
  | WasmErrorCode
  | SandboxErrorCode
  | AgentStoreErrorCode
  | AgentCodeErrorCode
  | AgentMessagingErrorCode
  | AgentLoopErrorCode
  | CliErrorCode;

/**
 * Every area's list by name, for tools that report which area a code belongs to.
 *
 * @example
 * Object.entries(TRUST_ERROR_CODE_AREAS).find(([, codes]) => codes.includes(code))?.[0]; // 'egress'
 */
export const TRUST_ERROR_CODE_AREAS = Object.freeze({
  core: CORE_ERROR_CODES,
  capability: CAPABILITY_ERROR_CODES,
  policy: POLICY_ERROR_CODES,
  audit: AUDIT_ERROR_CODES,
  egress: EGRESS_ERROR_CODES,
  wasm: WASM_ERROR_CODES,
  sandbox: SANDBOX_ERROR_CODES,
  'agent-store': AGENT_STORE_ERROR_CODES,
  'agent-code': AGENT_CODE_ERROR_CODES,
  'agent-messaging': AGENT_MESSAGING_ERROR_CODES,
  'agent-loop': AGENT_LOOP_ERROR_CODES,
  cli: CLI_ERROR_CODES,
} satisfies Readonly<Record<string, readonly TrustErrorCode[]>>);

/**
 * Every known code, in area order.
 *
 * @example
 * TRUST_ERROR_CODES.length; // the number of distinct codes
 */
export const TRUST_ERROR_CODES: readonly TrustErrorCode[] = Object.freeze(Object.values(TRUST_ERROR_CODE_AREAS).flat());

/**
 * True when `value` is a known code. Use it where a code arrives as data (a wire message, a
 * worker's reply, a JSON body) before passing it to `TrustError` or `deny`.
 *
 * @example
 * const code = isTrustErrorCode(wire.code) ? wire.code : 'CLI_INTERNAL';
 */
export function isTrustErrorCode(value: unknown): value is TrustErrorCode {
  return typeof value === 'string' && (TRUST_ERROR_CODES as readonly string[]).includes(value);
}
