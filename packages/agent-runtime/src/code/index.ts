export {
  createCodeSandbox,
  CODE_TERMINATE_GRACE_MS,
  CODE_TIMEOUT_CEILING_MS,
  DEFAULT_MAX_NESTED_RUNS,
  MAX_CODE_NESTING_DEPTH,
} from './code-sandbox.js';
export { MAX_BRIDGE_DEPTH } from './bridge-limits.js';
export { CODE_WORKER_HEAP, defaultCodeWorkers } from './worker-pool.js';
export type { CodeWorkerStats } from './worker-pool.js';
export type {
  BridgeHandler,
  CodeErrorCode,
  CodeResult,
  CodeRunOptions,
  CodeSandbox,
  CodeSandboxOptions,
} from './code-sandbox.js';
export { isGuestIdentifier } from './guest-prelude.js';
export type { GuestEntry } from './guest-prelude.js';
export { DEFAULT_CODE_METHOD_QUOTAS, createCodeRunner, parseLambdaRef } from './code-runner.js';
export type { CodeRunContext, CodeRunner, CodeRunnerOptions, LambdaRef } from './code-runner.js';
export { runMiddlewareChain } from './middleware.js';
export type { MiddlewareChainInput, MiddlewareOutcome, MiddlewareStep } from './middleware.js';
export { createTypeStripper, isTypeScriptPath } from './type-strip.js';
export type { CodeLanguage, TypeStripper, TypeStripperOptions, TypeStripResult } from './type-strip.js';
