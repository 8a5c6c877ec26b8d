import { mkdirSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxPolicy } from './policy.js';
import { protectedEntriesOf } from './protected-paths.js';

/** statfs(2) magic of overlayfs: an overlay cannot be the upper layer of another. */
const OVERLAYFS_MAGIC = 0x794c7630;

/**
 * Prepares, once per sandbox, what lets the launcher protect missing names without creating
 * anything in the user's tree: `lower`, a directory in the sandbox's own work directory holding
 * every protected name of the policy (and `.git`) as an empty read-only entry, and the writable
 * roots that can be overlaid: those on the same filesystem as `workDir` (where each run's
 * overlay work directory goes) and not on overlayfs themselves. Other roots keep host
 * placeholders. With `unixSockets` (which allows AF_UNIX), also the read-only grants and system
 * roots, as read-only overlays: a socket seen through an overlay is another inode, which no
 * listener is bound to, so only the named sockets (bound back by the launcher) answer.
 * `undefined` when there is nothing to overlay.
 *
 * @example
 * const overlay = prepareProtectedOverlay(policy, '/tmp/trust-sandbox-x'); // { lower, workBase, roots }
 */
export function prepareProtectedOverlay(
  policy: SandboxPolicy,
  workDir: string,
): { lower: string; workBase: string; roots: string[]; readOnlyRoots: string[] } | undefined {
  const dev = statSync(workDir).dev;
  const roots = policy.capabilities.fsGrants
    .filter((g) => g.mode === 'rw')
    .map((g) => g.path)
    .filter((root) => {
      const st = statSync(root, { throwIfNoEntry: false });
      return st?.isDirectory() === true && st.dev === dev && statfsSync(root).type !== OVERLAYFS_MAGIC;
    });
  const readOnlyRoots =
    policy.unixSockets.length === 0
      ? []
      : [...policy.capabilities.fsGrants.filter((g) => g.mode === 'ro').map((g) => g.path), ...policy.systemRoots].filter(
          (root) => statSync(root, { throwIfNoEntry: false })?.isDirectory() === true,
        );
  if (roots.length === 0 && readOnlyRoots.length === 0) return undefined;
  const lower = join(workDir, 'protected.lower');
  mkdirSync(lower, { recursive: true, mode: 0o755 });
  for (const e of [...protectedEntriesOf(policy), { name: '.git', type: 'dir' as const }]) {
    const path = join(lower, e.name);
    if (statSync(path, { throwIfNoEntry: false })) continue;
    if (e.type === 'dir') mkdirSync(path, { mode: 0o555 });
    else writeFileSync(path, '', { mode: 0o444 });
  }
  return { lower, workBase: workDir, roots, readOnlyRoots };
}
