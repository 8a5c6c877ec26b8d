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
