import { existsSync, readdirSync } from 'node:fs';
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
 * Finds `.git` entries of repositories nested below `roots` (not the roots' own `.git`), so a
 * plan can bind them read-only. Bounded: `maxDepth` levels below each root and `maxDirs`
 * directories in all; `node_modules`, `.git` and every path in `skip` (hidden and sensitive
 * roots) are not entered; symlinks are not followed. Repositories created during a run, or
 * deeper than the bound, are not found (see the README).
 *
 * @example
 * findNestedGit(['/srv/project'], { skip: ['/root'] }); // ['/srv/project/vendor/lib/.git']
 */
export function findNestedGit(roots: readonly string[], options: { skip?: readonly string[]; maxDepth?: number; maxDirs?: number } = {}): string[] {
  const skip = new Set(options.skip ?? []);
  const maxDepth = options.maxDepth ?? 3;
  let budget = options.maxDirs ?? 2000;
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (budget-- <= 0) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = `${dir === '/' ? '' : dir}/${e.name}`;
      if (e.name === '.git') {
        if (depth > 0 && (e.isDirectory() || e.isFile())) out.push(path);
        continue;
      }
      if (!e.isDirectory() || e.name === 'node_modules' || skip.has(path) || depth >= maxDepth) continue;
      walk(path, depth + 1);
    }
  };
  for (const r of roots) walk(r, 0);
  return [...new Set(out)];
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
