import { statfsSync, statSync } from 'node:fs';
import type { SandboxPolicy } from './policy.js';

/** statfs(2) magic of overlayfs: an overlay cannot be the upper layer of another. */
const OVERLAYFS_MAGIC = 0x794c7630;

/**
 * Decides, once per sandbox, which roots the launcher overlays in each run's namespace: the
 * writable roots on the same filesystem as `workDir` (where each run's overlay work directory
 * goes) and not on overlayfs themselves, whose missing protected names then exist only inside
 * the run (other roots keep host placeholders); and, with `unixSockets` (which allows AF_UNIX),
 * the read-only grants and system roots, as read-only overlays: a socket seen through an overlay
 * is another inode, which no listener is bound to, so only the named sockets (bound back by the
 * launcher) answer. `undefined` when there is nothing to overlay.
 *
 * @example
 * const overlay = prepareProtectedOverlay(policy, '/tmp/trust-sandbox-x'); // { workBase, roots, readOnlyRoots }
 */
export function prepareProtectedOverlay(policy: SandboxPolicy, workDir: string): { workBase: string; roots: string[]; readOnlyRoots: string[] } | undefined {
  const dev = statSync(workDir).dev;
  const isDir = (root: string): boolean => statSync(root, { throwIfNoEntry: false })?.isDirectory() === true;
  const roots = policy.capabilities.fsGrants
    .filter((g) => g.mode === 'rw')
    .map((g) => g.path)
    .filter((root) => isDir(root) && statSync(root).dev === dev && statfsSync(root).type !== OVERLAYFS_MAGIC);
  const readOnlyRoots =
    policy.unixSockets.length === 0 ? [] : [...policy.capabilities.fsGrants.filter((g) => g.mode === 'ro').map((g) => g.path), ...policy.systemRoots].filter(isDir);
  if (roots.length === 0 && readOnlyRoots.length === 0) return undefined;
  return { workBase: workDir, roots, readOnlyRoots };
}
