/**
 * Stable error codes of `@trust/agent-runtime`'s code execution: the code sandbox, the shell, lambdas and middleware.
 * The list is data: `@trust/core` collects every package's codes so that `TrustError` accepts only
 * known ones. A package that adds a code adds it here, one per line.
 *
 * @example
 * AGENT_CODE_ERROR_CODES.includes('CODE_TIMEOUT'); // true
 */
export const AGENT_CODE_ERROR_CODES = Object.freeze([
  'CODE_ABORTED',
  'CODE_ENTRY_INVALID',
  'CODE_ERROR',
  'CODE_MEMORY_LIMIT',
  'CODE_MESSAGE_TOO_LARGE',
  'CODE_METHOD_DISABLED',
  'CODE_METHOD_QUOTA',
  'CODE_MODULE_DENIED',
  'CODE_MODULE_UNSUPPORTED',
  'CODE_NESTING_LIMIT',
  'CODE_ONLY_METHOD',
  'CODE_SANDBOX_CLOSED',
  'CODE_STACK_OVERFLOW',
  'CODE_SYNTAX',
  'CODE_TIMEOUT',
  'CODE_TOO_MANY_CALLS',
  'CODE_VALUE_TOO_DEEP',
  'CODE_WORKER_FAILED',
  'CODE_WORKER_MISSING',
  'EVENT_TOO_LARGE',
  'EVENT_TYPE_INVALID',
  'LAMBDA_REF_INVALID',
  'MIDDLEWARE_FAILED',
  'MIDDLEWARE_INVALID',
  'MIDDLEWARE_MISSING',
  'MIDDLEWARE_REJECTED',
  'MIDDLEWARE_UNAUTHORIZED',
  'SHELL_ABORTED',
  'SHELL_ARITH',
  'SHELL_INTERNAL',
  'SHELL_LIMIT',
  'SHELL_REDIRECT',
  'SHELL_SYNTAX',
  'SHELL_UNDECLARED_TOOL',
  'SHELL_UNSUPPORTED',
  'SHELL_USAGE',
] as const);
/** One of `AGENT_CODE_ERROR_CODES`. */
export type AgentCodeErrorCode = (typeof AGENT_CODE_ERROR_CODES)[number];
