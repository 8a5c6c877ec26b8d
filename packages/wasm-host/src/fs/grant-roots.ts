import { fstatSync, lstatSync } from 'node:fs';
import { fdPath } from './proc-fd.js';

/** The mode of one fs entry: a grant (`ro`/`rw`) or a deny entry (`none`). */
export type EntryMode = 'ro' | 'rw' | 'none';

/**
 * A nested entry's mode, or `keep`: a directory between an outer entry and a nested one. It grants
 * what its surroundings grant, but its name is fixed (`busy`), like a nested entry's own: renaming
 * it away and putting a decoy in its place would move the next load's nested entry onto the decoy
 * (a deny entry then hiding the decoy while the real directory sits under the new name).
 */
export type RootMode = EntryMode | 'keep';

/**
 * The fs entries of one plugin that lie inside another entry, by the identity (device and inode)
 * of what the host pinned at load: `"<dev>:<ino>"` → mode. A walk that reaches one of them takes
 * its mode from there on (or stops with `access` for `none`), whatever the name it was reached by:
 * renaming an inner grant, or reaching it through `..`, does not change what it grants. Empty when
 * no entry lies inside another (then no walk pays for an identity check).
 */
export type GrantRoots = ReadonlyMap<string, RootMode>;

/** Where a walk starts: the rights of the descriptor it starts from, and the plugin's nested entries. */
export interface WalkScope {
  readonly mode: 'ro' | 'rw';
  readonly roots: GrantRoots;
}

/** The identity key of a stat result. */
export const identityOf = (s: { dev: bigint; ino: bigint }): string => `${s.dev}:${s.ino}`;

/** The nested entry the open descriptor `fd` is, if any. */
export function rootOfFd(roots: GrantRoots, fd: number): RootMode | undefined {
  if (roots.size === 0) return undefined;
  return roots.get(identityOf(fstatSync(fd, { bigint: true })));
}

/** The nested entry the name `name` in directory `dir` is (not following it), if any; a missing name is none. */
export function rootOfName(roots: GrantRoots, dir: number, name: string): RootMode | undefined {
  if (roots.size === 0) return undefined;
  const s = lstatSync(fdPath(dir, name), { bigint: true, throwIfNoEntry: false });
  return s ? roots.get(identityOf(s)) : undefined;
}
