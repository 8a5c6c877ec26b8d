import { existsSync } from 'node:fs';
import type { SandboxPolicy } from './policy.js';

/** The first existing path of `candidates`. */
export function findTool(candidates: readonly string[]): string | undefined {
  return candidates.find((c) => existsSync(c));
}

/** True when the policy asks for any resource limit. */
export function hasRlimits(policy: SandboxPolicy): boolean {
  const l = policy.limits;
  return l.memoryBytes !== undefined || l.files !== undefined || l.pids !== undefined || l.fileSizeBytes !== undefined;
}
