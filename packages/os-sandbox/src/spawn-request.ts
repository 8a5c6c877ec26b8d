// The one boundary every caller-supplied value of a run crosses before anything is planned: argv,
// environment names and values, the working directory and the per-run limits (`evaluateSpawnRequest`),
// and the policy's paths and names (`evaluatePolicyValues`, once per sandbox). Everything after it
// takes the frozen copy it returns and never looks at the caller's objects again.
import { allow, deny, type Allow, type Deny } from '@trust/core';
import type { SandboxPolicy } from './policy.js';
import type { SpawnOptions } from './sandbox-types.js';

/**
 * Environment variable names a run accepts: what POSIX shells can name. Anything else (a NUL, a
 * space, `=`, a leading `-`) could mean something else to a program that reads the environment or
 * to the option list that carries it.
 */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** C0 control bytes and DEL: refused in paths (working directory, grants, system and hidden paths). */
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Largest argv, environment or path this boundary accepts, in UTF-8 bytes (the wire's frame is 64 MiB). */
export const MAX_REQUEST_BYTES = 16 << 20;

/** A run's caller-supplied values, validated and copied: nothing here refers to the caller's objects. */
export interface SpawnRequest {
  readonly argv: readonly string[];
  /** Explicit variables (null prototype, frozen); undefined = none passed. */
  readonly env: Readonly<Record<string, string>> | undefined;
  /**
   * Absolute, without control bytes or `.`/`..` segments, repeated or trailing slashes removed; undefined = the
   * default.
   */
  readonly cwd: string | undefined;
  readonly timeoutMs: number | undefined;
  readonly maxOutputBytes: number | undefined;
}

/** The answer of `evaluateSpawnRequest`: allowed with the validated copy, or denied with a stable code. */
export type SpawnRequestDecision = (Allow & { readonly request: SpawnRequest }) | Deny;

const describe = (s: string): string => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

/**
 * An absolute path as a run or a policy may name it: no control byte (a NUL would end the word in
 * bubblewrap's NUL-separated option list and start an option of the caller's choosing), no `.` or
 * `..` segment. Returns it without repeated or trailing slashes, or the reason it is refused.
 */
export function checkPath(path: unknown): { ok: true; path: string } | { ok: false; reason: string } {
  if (typeof path !== 'string' || !path.startsWith('/'))
    return { ok: false, reason: `${typeof path === 'string' ? describe(path) : typeof path} is not an absolute path` };
  if (CONTROL.test(path)) return { ok: false, reason: `${describe(path)} contains a control byte (NUL, newline, …)` };
  const parts = path.split('/').filter((p) => p !== '');
  if (parts.some((p) => p === '.' || p === '..'))
    return { ok: false, reason: `${describe(path)} has a "." or ".." segment` };
  if (Buffer.byteLength(path, 'utf8') > 4096)
    return { ok: false, reason: `${describe(path)} is longer than 4096 bytes` };
  return { ok: true, path: `/${parts.join('/')}` };
}

const limit = (name: string, v: unknown): Deny | undefined =>
  v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0)
    ? undefined
    : deny('SANDBOX_LIMIT_INVALID', `spawn option ${name} must be a finite number ≥ 0, got ${String(v)}`, {
        hint: `pass e.g. { ${name}: 5000 } or leave it out`,
      });

/**
 * Checks every value a caller passes to `spawn` and returns a frozen copy of them, or the first
 * refusal (codes `SANDBOX_ARGV_INVALID`, `SANDBOX_ENV_INVALID`, `SANDBOX_CWD_INVALID`,
 * `SANDBOX_LIMIT_INVALID`). argv words and environment values may hold any character but NUL;
 * environment names must match `ENV_NAME_PATTERN`; the working directory must pass `checkPath`.
 * Which names the policy lets in (secrets, reserved names) and whether the directory is granted
 * are decided later, on this copy.
 *
 * @example
 * const d = evaluateSpawnRequest(['/bin/ls'], { cwd: '/proj/\0--ro-bind\0/etc\0/proj/etc' });
 * d.allow; // false: SANDBOX_CWD_INVALID
 */
export function evaluateSpawnRequest(argv: unknown, opts: SpawnOptions = {}): SpawnRequestDecision {
  if (!Array.isArray(argv) || argv.length === 0) {
    return deny('SANDBOX_ARGV_INVALID', 'argv must be a non-empty array of strings', {
      hint: 'pass ["/usr/bin/env", "node", "script.js"], never a shell command string',
    });
  }
  const words: string[] = [];
  let bytes = 0;
  for (const [i, w] of (argv as unknown[]).entries()) {
    if (typeof w !== 'string' || w.includes('\0') || (i === 0 && w === '')) {
      return deny(
        'SANDBOX_ARGV_INVALID',
        `argv[${i}] must be a string without NUL bytes${i === 0 ? ', and not empty' : ''}`,
        {
          hint: 'pass each argument as its own string; a NUL byte cannot be part of a process argument',
        },
      );
    }
    bytes += Buffer.byteLength(w, 'utf8') + 1;
    words.push(w);
  }
  let env: Record<string, string> | undefined;
  if (opts.env !== undefined) {
    if (opts.env === null || typeof opts.env !== 'object' || Array.isArray(opts.env)) {
      return deny('SANDBOX_ENV_INVALID', 'spawn option env must be an object of string values', {
        hint: 'pass e.g. { env: { LOG_LEVEL: "debug" } }',
      });
    }
    env = Object.create(null) as Record<string, string>;
    for (const [name, value] of Object.entries(opts.env)) {
      if (!ENV_NAME_PATTERN.test(name)) {
        return deny('SANDBOX_ENV_INVALID', `environment variable name ${describe(name)} is not a plain name`, {
          hint: 'names are letters, digits and "_", not starting with a digit (e.g. LOG_LEVEL)',
        });
      }
      if (typeof value !== 'string' || value.includes('\0')) {
        return deny('SANDBOX_ENV_INVALID', `environment variable ${name} must be a string without NUL bytes`, {
          hint: 'pass the value as a string; a NUL byte cannot be part of an environment value',
        });
      }
      bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8') + 2;
      env[name] = value;
    }
    Object.freeze(env);
  }
  let cwd: string | undefined;
  if (opts.cwd !== undefined) {
    const c = checkPath(opts.cwd);
    if (!c.ok)
      return deny('SANDBOX_CWD_INVALID', `working directory refused: ${c.reason}`, {
        hint: 'pass the absolute path of a granted directory, e.g. { cwd: "/srv/project" }',
      });
    cwd = c.path;
  }
  if (bytes > MAX_REQUEST_BYTES) {
    return deny('SANDBOX_ARGV_INVALID', `argv and environment take ${bytes} bytes, more than ${MAX_REQUEST_BYTES}`, {
      hint: 'pass large inputs through stdin or a granted file',
    });
  }
  const bad = limit('timeoutMs', opts.timeoutMs) ?? limit('maxOutputBytes', opts.maxOutputBytes);
  if (bad) return bad;
  const request: SpawnRequest = Object.freeze({
    argv: Object.freeze(words),
    env,
    cwd,
    timeoutMs: opts.timeoutMs,
    maxOutputBytes: opts.maxOutputBytes,
  });
  return { ...allow('spawn-request'), request };
}

/**
 * Checks the caller-supplied values of a parsed policy that reach the native side: every granted,
 * system and hidden path passes `checkPath` (no control byte, no `.`/`..`), every granted
 * environment name matches `ENV_NAME_PATTERN`. Code `SANDBOX_POLICY_INVALID`.
 *
 * @example
 * evaluatePolicyValues(parseSandboxPolicy({ v: 1, capabilities: ['fs:rw:/w\n'] })); // deny
 */
export function evaluatePolicyValues(policy: SandboxPolicy): Allow | Deny {
  const caps = policy.capabilities;
  const paths: [string, string][] = [
    ...caps.fsGrants.map((g): [string, string] => [`fs:${g.mode}:`, g.path]),
    ...policy.systemRoots.map((p): [string, string] => ['systemRoots', p]),
    ...policy.hiddenPaths.map((p): [string, string] => ['hiddenPaths', p]),
  ];
  for (const [where, p] of paths) {
    const c = checkPath(p);
    if (!c.ok)
      return deny('SANDBOX_POLICY_INVALID', `policy path in ${where} refused: ${c.reason}`, {
        hint: 'write plain absolute paths, e.g. "fs:rw:/srv/project"',
      });
  }
  for (const name of caps.envNames) {
    if (!ENV_NAME_PATTERN.test(name)) {
      return deny('SANDBOX_POLICY_INVALID', `granted environment name ${describe(name)} is not a plain name`, {
        hint: 'grant e.g. "env:LOG_LEVEL"',
      });
    }
  }
  return allow('policy-values');
}
