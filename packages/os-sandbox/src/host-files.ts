import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
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

/**
 * Launcher arguments that hold every writable root with a shared lock for the run and name the
 * placeholders (always `<root>/<name>`) to remove when it is over, while no other run holds that
 * root. Removing them on the host any earlier would detach the read-only mounts of another live
 * run that bound over them.
 *
 * @example
 * holdAndSweep(['/srv/p'], [{ path: '/srv/p/.bashrc', type: 'file' }]); // ['--hold', '/srv/p', '--sweep', 'f', '/srv/p/.bashrc']
 */
export function holdAndSweep(rwRoots: readonly string[], placeholders: LinuxPlan['placeholders']): string[] {
  return [...new Set(rwRoots)].flatMap((root) => [
    '--hold', root,
    ...placeholders.filter((p) => dirname(p.path) === root).flatMap((p) => ['--sweep', p.type === 'file' ? 'f' : 'd', p.path]),
  ]);
}
