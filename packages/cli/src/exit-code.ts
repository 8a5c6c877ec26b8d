/**
 * The documented exit codes of `trust`. Scripts may rely on them.
 *
 * - 0 `ok`: the command did what was asked.
 * - 1 `failure`: it could not (a missing file, a broken chain, a feature not built yet).
 * - 2 `usage`: the command line was wrong (unknown flag, missing argument).
 * - 126 `denied`: a policy denied the action (egress denied, a plugin refused at load, a sandbox request refused).
 * - 130 `rejected`: a person rejected the action (an approval answered "no").
 *
 * `trust sandbox` passes the sandboxed process's own exit code through instead.
 *
 * @example
 * process.exitCode = EXIT_CODES.usage;
 */
export const EXIT_CODES = Object.freeze({ ok: 0, failure: 1, usage: 2, denied: 126, rejected: 130 });

/** One of the documented exit codes. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/**
 * Codes that mean "a policy refused this" although they carry no Decision: a plugin refused at
 * load (no or a bad signature, an untrusted key, imports its grants do not provide, a network
 * capability without an egress policy) and a sandbox request its policy does not allow. They exit
 * 126 like an egress denial, not 1: nothing broke, the answer was no.
 */
export const REFUSAL_CODES: ReadonlySet<string> = new Set([
  'WASM_UNSIGNED',
  'WASM_SIGNATURE_INVALID',
  'WASM_KEY_UNTRUSTED',
  'WASM_FILE_CHANGED',
  'WASM_FILE_UNSIGNED',
  'WASM_IMPORT_UNSATISFIED',
  'WASM_EGRESS_POLICY_MISSING',
  'SANDBOX_DEGRADED_REFUSED',
  'SANDBOX_GRANT_SYMLINK',
  'SANDBOX_PROTECTED_SYMLINK',
  'SANDBOX_CWD_NOT_GRANTED',
  'SANDBOX_CAPABILITY_MISSING',
  'SANDBOX_ENV_SECRET',
  'SANDBOX_ENV_RESERVED',
]);

interface CodedError {
  readonly code?: unknown;
  readonly exitCode?: unknown;
  readonly decision?: unknown;
}

/**
 * Maps an error to its exit code: an explicit `exitCode` wins; `CLI_USAGE*` is 2; a code ending in
 * `_REJECTED` is 130; an error that carries a deny decision, a code ending in `_DENIED`, or one of
 * {@link REFUSAL_CODES} is 126; everything else is 1.
 *
 * @example
 * exitCodeFor({ code: 'CLI_USAGE_UNKNOWN_OPTION' }); // 2
 */
export function exitCodeFor(error: unknown): ExitCode {
  const e = (typeof error === 'object' && error !== null ? error : {}) as CodedError;
  if (typeof e.exitCode === 'number' && (Object.values(EXIT_CODES) as number[]).includes(e.exitCode)) {
    return e.exitCode as ExitCode;
  }
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('CLI_USAGE')) return EXIT_CODES.usage;
  if (code.endsWith('_REJECTED')) return EXIT_CODES.rejected;
  if (code.endsWith('_DENIED') || REFUSAL_CODES.has(code) || (typeof e.decision === 'object' && e.decision !== null))
    return EXIT_CODES.denied;
  return EXIT_CODES.failure;
}
