import { formatCapability, type Capability } from './capability.js';
import type { Problem } from './error.js';
import { isPathWithin } from './path.js';

type FsCap = Extract<Capability, { kind: 'fs' }>;

/**
 * Cross-entry rules for fs entries (each already canonical, exact duplicates already collapsed):
 * - one path is named in one mode: `fs:ro:/a` with `fs:rw:/a` is `CAPABILITY_FS_MODE_CONFLICT`,
 *   and so is a deny entry on a granted directory itself;
 * - a deny entry (`fs:none:<path>`) must lie strictly inside a grant
 *   (`CAPABILITY_FS_DENY_UNCOVERED`): outside every grant the path is not reachable anyway, and
 *   an entry that does nothing would mislead a reviewer.
 * Nesting is allowed: the most specific entry covering a path wins, in both backends. (The WASM
 * host tells directories apart by identity, not by name, so the outer grant renaming an inner one
 * does not move the inner grant's rights; the OS sandbox mounts parents before children.)
 *
 * `indexOf` maps a canonical capability string to its position in the input list.
 */
export function fsGrantConflicts(entries: readonly Capability[], indexOf: ReadonlyMap<string, number>): Problem[] {
  const fs = entries.filter((e): e is FsCap => e.kind === 'fs');
  const problems: Problem[] = [];
  const at = (g: FsCap) => indexOf.get(formatCapability(g)) ?? -1;
  for (let i = 0; i < fs.length; i++) {
    const a = fs[i] as FsCap;
    const twin = fs.slice(0, i).find((b) => b.path === a.path);
    if (twin) {
      problems.push({
        code: 'CAPABILITY_FS_MODE_CONFLICT',
        severity: 'error',
        path: `[${at(a)}]`,
        message: `"${a.path}" is named both "${twin.mode}" and "${a.mode}" (at [${at(twin)}] and [${at(a)}])`,
        hint: `keep one of "fs:${twin.mode}:${a.path}" and "fs:${a.mode}:${a.path}"`,
      });
      continue;
    }
    if (a.mode !== 'none') continue;
    const covered = fs.some((g) => g.mode !== 'none' && g.path !== a.path && isPathWithin(g.path, a.path));
    if (!covered) {
      problems.push({
        code: 'CAPABILITY_FS_DENY_UNCOVERED',
        severity: 'error',
        path: `[${at(a)}]`,
        message: `"fs:none:${a.path}" lies inside no grant, so it hides nothing`,
        hint: `remove it, or grant a directory that contains it, e.g. "fs:ro:${parentOf(a.path)}"`,
      });
    }
  }
  return problems;
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/srv/project' : path.slice(0, cut);
}
