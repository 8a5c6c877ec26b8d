import type { CliErrorCode, TrustErrorCode } from '@trust/core';
import type { ExitCode } from './exit-code.js';

/**
 * An error raised by the command framework itself (usage errors, a command not built yet).
 * Command code throws `TrustError` from `@trust/core`; the framework prints both the same way
 * (code, reason, hint). This class exists so that `trust --help` and usage errors never load
 * `@trust/core` at run time (the code type is erased), which keeps the cold start small.
 *
 * @example
 * throw usageError('CLI_USAGE_MISSING_ARGUMENT', 'trust audit verify needs a file', 'trust audit verify audit.jsonl');
 */
export class CliError extends Error {
  readonly code: TrustErrorCode;
  readonly hint: string | undefined;
  readonly exitCode: ExitCode | undefined;

  constructor(
    code: TrustErrorCode,
    message: string,
    options: { hint?: string; exitCode?: ExitCode; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode;
  }
}

/** A usage error (exit code 2). `code` should start with `CLI_USAGE`. */
export function usageError(code: CliErrorCode, message: string, hint?: string): CliError {
  return new CliError(code, message, hint === undefined ? { exitCode: 2 } : { hint, exitCode: 2 });
}

/** The error for a command whose package has not landed yet (exit code 1, code `NOT_IMPLEMENTED`). */
export function notAvailableError(command: string, reason: string): CliError {
  return new CliError('NOT_IMPLEMENTED', `trust ${command} is not available yet: ${reason}`, {
    hint: 'run `trust --help` to see the commands that work today',
    exitCode: 1,
  });
}
