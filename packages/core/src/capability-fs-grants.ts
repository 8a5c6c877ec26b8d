import { formatCapability, type Capability } from './capability.js';
import type { Problem } from './error.js';
import { isPathWithin } from './path.js';

type FsCap = Extract<Capability, { kind: 'fs' }>;

/**
 * Cross-grant rules for fs grants (each already canonical): one directory is granted once, in
 * one mode, and no grant lies inside another. A nested grant is refused because a backend
 * confines each grant beneath its own directory: with `fs:rw:/a` and `fs:ro:/a/b`, the rw grant
 * can rename `b` away and put a symlink in its place, and the ro grant then names whatever that
 * symlink points at. Siblings cannot be rearranged by each other.
 *
 * `indexOf` maps a canonical capability string to its position in the input list.
 */
export function fsGrantConflicts(entries: readonly Capability[], indexOf: ReadonlyMap<string, number>): Problem[] {
  const grants = entries.filter((e): e is FsCap => e.kind === 'fs');
  const problems: Problem[] = [];
  const at = (g: FsCap) => indexOf.get(formatCapability(g)) ?? -1;
  for (let i = 0; i < grants.length; i++) {
    for (let j = 0; j < grants.length; j++) {
      if (i === j) continue;
      const a = grants[i] as FsCap;
      const b = grants[j] as FsCap;
      if (a.path === b.path) {
        if (i < j) {
          problems.push({
            code: 'CAPABILITY_FS_MODE_CONFLICT',
            severity: 'error',
            path: `[${at(b)}]`,
            message: `"${a.path}" is granted both read-only and read-write (at [${at(a)}] and [${at(b)}])`,
            hint: `keep one: "fs:rw:${a.path}" or "fs:ro:${a.path}"`,
          });
        }
      } else if (isPathWithin(a.path, b.path)) {
        problems.push({
          code: 'CAPABILITY_FS_OVERLAP',
          severity: 'error',
          path: `[${at(b)}]`,
          message:
            `"${formatCapability(b)}" lies inside "${formatCapability(a)}" (at [${at(a)}]); nested grants are ` +
            `not allowed`,
          hint:
            `grant sibling directories instead (e.g. keep "${formatCapability(b)}" and grant the other ` +
            `subdirectories of ${a.path} one by one), or only "${formatCapability(a)}"`,
        });
      }
    }
  }
  return problems;
}
