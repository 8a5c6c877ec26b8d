import { lstatSync, readlinkSync } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';

/** What the planner knows about one host path. */
export type PathFact =
  /** `id`, where collected: device and inode (a bind shows the very file it was made of). */
  | { readonly kind: 'file' | 'dir' | 'socket' | 'other'; readonly id?: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'symlink'; readonly target: string };

/**
 * Facts about the host that a plan depends on, gathered by `collectHostFacts` before planning so
 * that `planSandbox` itself stays pure (and snapshot-testable with hand-written facts).
 */
export interface HostFacts {
  /** Facts for the paths the plan asks about; an absent path counts as missing. */
  readonly paths: Readonly<Record<string, PathFact>>;
  /** The host user's home directory, hidden unless granted. */
  readonly home?: string;
  /** bubblewrap ≥ 0.8 supports `--disable-userns`. */
  readonly bwrapDisableUserns: boolean;
}

const USRMERGE_PATHS: Record<string, PathFact> = {
  '/bin': { kind: 'symlink', target: 'usr/bin' },
  '/sbin': { kind: 'symlink', target: 'usr/sbin' },
  '/lib': { kind: 'symlink', target: 'usr/lib' },
  '/lib64': { kind: 'symlink', target: 'usr/lib64' },
  '/lib32': { kind: 'missing' },
  '/libx32': { kind: 'missing' },
};

/** The usrmerge layout of Debian 12 / Ubuntu / Fedora; the default facts of `planSandbox`. */
export const USRMERGE_FACTS: HostFacts = Object.freeze({
  paths: Object.freeze(USRMERGE_PATHS),
  home: '/root',
  bwrapDisableUserns: true,
});

/**
 * Reads facts for `paths` from the host with lstat (symlinks are not followed).
 *
 * @example
 * const paths = await collectPathFacts(['/bin', '/lib64']); // { '/bin': { kind: 'symlink', target: 'usr/bin' }, ... }
 */
export async function collectPathFacts(paths: Iterable<string>): Promise<Record<string, PathFact>> {
  const out: Record<string, PathFact> = {};
  await Promise.all(
    [...new Set(paths)].map(async (p) => {
      try {
        const st = await lstat(p);
        if (st.isSymbolicLink()) out[p] = { kind: 'symlink', target: await readlink(p) };
        else out[p] = { kind: st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSocket() ? 'socket' : 'other' };
      } catch {
        out[p] = { kind: 'missing' };
      }
    }),
  );
  return out;
}

/**
 * Synchronous `collectPathFacts`: a few lstat calls per spawn are cheaper than promise hops. A
 * missing path (most protected files are) is reported without an exception, which would cost
 * more than the lstat itself.
 */
export function collectPathFactsSync(paths: Iterable<string>): Record<string, PathFact> {
  const out: Record<string, PathFact> = {};
  for (const p of new Set(paths)) {
    try {
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) out[p] = { kind: 'missing' };
      else if (st.isSymbolicLink()) out[p] = { kind: 'symlink', target: readlinkSync(p) };
      else
        out[p] = {
          kind: st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSocket() ? 'socket' : 'other',
          id: `${st.dev}:${st.ino}`,
        };
    } catch {
      out[p] = { kind: 'missing' };
    }
  }
  return out;
}
