import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { type EgressPolicy, TrustError, compilePolicy, formatCidr, isTrustError, parsePolicyText } from '@trust/core';
import type { GuardOptions } from '@trust/egress';

/** Largest workspace policy file read, in bytes (a policy is a few lines). */
export const MAX_WORKSPACE_POLICY_BYTES = 256 * 1024;

/** One compiled policy the engine runs: from the workspace file, or the ADF default. */
export interface CompiledWorkspacePolicy {
  readonly source: 'file' | 'default';
  readonly policy: EgressPolicy;
  /** Guard options the file asks for (mode, CIDRs, ports); `{}` for the default. */
  readonly guard: GuardOptions;
  /** SHA-256 of the file's text; null for the default. */
  readonly sha256: string | null;
}

/** The file's identity on disk: a change of any part means "read it again". */
export interface FileStamp {
  readonly exists: boolean;
  readonly key: string;
}

/**
 * The ADF default when a workspace has no policy file: any public http(s) destination is allowed
 * by the policy; the address guard (mode `default`, the control port protected) still refuses
 * private, link-local and metadata addresses on the address actually dialled. Raw tcp/udp: denied.
 */
export const ADF_DEFAULT_POLICY: EgressPolicy = Object.freeze({
  authorizeHttp: () => ({ allow: true as const, rule: 'adf-default' }),
});

/** The default as the engine runs it. */
export const DEFAULT_COMPILED: CompiledWorkspacePolicy = Object.freeze({
  source: 'default' as const,
  policy: ADF_DEFAULT_POLICY,
  guard: {},
  sha256: null,
});

/**
 * Reads the file without following a symlink; `undefined` when it does not exist. A file that
 * cannot be read as a small regular file is refused (`WORKSPACE_POLICY_INVALID`).
 */
export function readPolicyFile(file: string): { text: string; stamp: FileStamp } | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new TrustError('WORKSPACE_POLICY_INVALID', `cannot read the workspace egress policy ${file} (${code})`, {
      hint: 'make it a regular file (not a symlink) the workspace can read: JSON, format v: 1',
    });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_WORKSPACE_POLICY_BYTES)
      throw new TrustError(
        'WORKSPACE_POLICY_INVALID',
        `the workspace egress policy ${file} is not a regular file of at most ${MAX_WORKSPACE_POLICY_BYTES} bytes`,
        { hint: 'a policy lists hosts; replace it with a short JSON file (format v: 1)' },
      );
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return { text: buf.subarray(0, off).toString('utf8'), stamp: stampOf(st) };
  } finally {
    closeSync(fd);
  }
}

/** A stamp from stat values (inode, size, change time: a rename over the file changes the inode). */
export function stampOf(st: { ino: number; size: number; mtimeMs: number; ctimeMs: number }): FileStamp {
  return { exists: true, key: `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` };
}

/**
 * Compiles a policy file's text with core's validator (the schema of `trust egress check --policy`).
 * `{ "env": NAME }` header values come from `env`. A text the validator refuses, or a missing
 * variable, throws `WORKSPACE_POLICY_INVALID` with every problem.
 *
 * @example
 * const compiled = compileWorkspacePolicy('{"v":1,"http":{"allow":["api.example.com"]}}', process.env);
 */
export function compileWorkspacePolicy(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  file = 'egress-policy.json',
): CompiledWorkspacePolicy {
  let compiled: ReturnType<typeof compilePolicy>;
  try {
    compiled = compilePolicy(parsePolicyText(text), { env });
  } catch (e) {
    if (!isTrustError(e)) throw e;
    throw new TrustError('WORKSPACE_POLICY_INVALID', `the workspace egress policy ${file} is refused: ${e.message}`, {
      hint: e.hint ?? 'open it in the Policy view: each problem is shown in place',
      problems: e.problems ?? [],
      cause: e,
    });
  }
  const g = compiled.guard;
  const guard: GuardOptions = g
    ? {
        mode: g.mode,
        ...(g.protectedPorts ? { protectedPorts: [...g.protectedPorts] } : {}),
        allowCidrs: g.allowCidrs.map((c) => formatCidr(c)),
        denyCidrs: g.denyCidrs.map((c) => formatCidr(c)),
      }
    : {};
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  return Object.freeze({ source: 'file' as const, policy: compiled.policy, guard, sha256 });
}
