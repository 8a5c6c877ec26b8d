export { createCodeSandbox, CODE_TIMEOUT_CEILING_MS } from './code-sandbox.js';
export type { BridgeHandler, CodeErrorCode, CodeResult, CodeRunOptions, CodeSandbox, CodeSandboxOptions } from './code-sandbox.js';
export { isGuestIdentifier } from './guest-prelude.js';
export type { GuestEntry } from './guest-prelude.js';
export { createCodeRunner, parseLambdaRef } from './code-runner.js';
export type { CodeRunContext, CodeRunner, CodeRunnerOptions, LambdaRef } from './code-runner.js';
export { runMiddlewareChain } from './middleware.js';
export type { MiddlewareOutcome } from './middleware.js';
