import type { EgressPolicy } from '@trust/core';
import { readInputFile } from './read-input-file.js';

/** An egress policy file, compiled: the policy and the guard options it carries. */
export interface LoadedEgressPolicy {
  readonly path: string;
  readonly policy: EgressPolicy;
  /** The policy document as parsed from the file, before compiling (no `{ "env": NAME }` resolved). */
  readonly document: unknown;
  /** Guard options from the file's `guard` section, in the form `@trust/egress` takes. */
  readonly guard: {
    readonly mode?: 'default' | 'allow-local' | 'strict';
    readonly protectedPorts?: readonly number[];
    readonly allowCidrs?: readonly string[];
    readonly denyCidrs?: readonly string[];
  };
}

/**
 * Reads and compiles an egress policy file (format `v: 1`, see @trust/core). Validation errors
 * list every problem (`POLICY_INVALID`); `{ "env": NAME }` header values come from `env`.
 *
 * @example
 * const { policy, guard } = await loadEgressPolicyFile(io.cwd, 'policy.json', io.env);
 */
export async function loadEgressPolicyFile(
  cwd: string,
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<LoadedEgressPolicy> {
  const { compilePolicy, formatCidr, parsePolicyText } = await import('@trust/core');
  const text = await readInputFile(cwd, path, 'egress policy file');
  const document = parsePolicyText(text);
  const { policy, guard } = compilePolicy(document, { env });
  return {
    path,
    policy,
    document,
    guard: guard
      ? {
          mode: guard.mode,
          ...(guard.protectedPorts ? { protectedPorts: guard.protectedPorts } : {}),
          allowCidrs: guard.allowCidrs.map((c) => formatCidr(c)),
          denyCidrs: guard.denyCidrs.map((c) => formatCidr(c)),
        }
      : {},
  };
}
