import { existsSync, readdirSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import type { LinuxPlan } from './bwrap-plan.js';
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

/** Removes placeholders bwrap created on the host, but only while they are still empty. */
export function removePlaceholders(list: LinuxPlan['placeholders']): void {
  for (const p of list) {
    try {
      const st = statSync(p.path);
      if (p.type === 'file' && st.isFile() && st.size === 0) unlinkSync(p.path);
      else if (p.type === 'dir' && st.isDirectory() && readdirSync(p.path).length === 0) rmdirSync(p.path);
    } catch {
      /* already gone */
    }
  }
}
