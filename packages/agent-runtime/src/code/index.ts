export { createCodeSandbox, CODE_TIMEOUT_CEILING_MS } from './code-sandbox.js';
export type { BridgeHandler, CodeErrorCode, CodeResult, CodeRunOptions, CodeSandbox, CodeSandboxOptions } from './code-sandbox.js';
export { isGuestIdentifier } from './guest-prelude.js';
export type { GuestEntry } from './guest-prelude.js';
