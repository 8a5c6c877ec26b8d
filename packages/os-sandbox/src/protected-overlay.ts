import { mkdirSync, statfsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SandboxPolicy } from './policy.js';

/** statfs(2) magic of overlayfs: an overlay cannot be the upper layer of another. */
const OVERLAYFS_MAGIC = 0x794c7630;

/**
 * Where overlay work directories go when the sandbox's work directory is on another filesystem
 * than a root: the per-user cache (`$XDG_CACHE_HOME/trust/overlay-work`, else
 * `~/.cache/trust/overlay-work`), which usually shares the filesystem of the projects in `$HOME`.
 */
export function defaultOverlayCache(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'trust', 'overlay-work');
}

/**
 * Decides, once per sandbox, which roots the launcher overlays in each run's namespace: the
 * writable roots not on overlayfs themselves that share a filesystem with `workDir` or with
 * `cacheDir` (an overlay's work directory must be on its upper layer's filesystem; each run's
 * goes below the first of the two that does, outside the user's tree), whose missing protected
 * names then exist only inside the run (other roots keep host placeholders); and, with
 * `unixSockets` (which allows AF_UNIX), the read-only grants and system roots, as read-only
 * overlays: a socket seen through an overlay is another inode, which no listener is bound to, so
 * only the named sockets (bound back by the launcher) answer. `undefined` when there is nothing
 * to overlay.
 *
 * @example
 * const overlay = prepareProtectedOverlay(policy, '/tmp/trust-sandbox-x'); // { roots: [{ root, workBase }], readOnlyRoots }
 */
export function prepareProtectedOverlay(
  policy: SandboxPolicy,
  workDir: string,
  cacheDir: string = defaultOverlayCache(),
): { roots: { root: string; workBase: string }[]; readOnlyRoots: string[] } | undefined {
  const isDir = (root: string): boolean => statSync(root, { throwIfNoEntry: false })?.isDirectory() === true;
  let cache: { dir: string; dev: number } | null | undefined;
  const cacheOn = (dev: number): string | undefined => {
    if (cache === undefined) {
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        cache = { dir: cacheDir, dev: statSync(cacheDir).dev };
      } catch {
        cache = null;
      }
    }
    return cache && cache.dev === dev ? cache.dir : undefined;
  };
  const workDev = statSync(workDir).dev;
  const roots = policy.capabilities.fsGrants
    .filter((g) => g.mode === 'rw' && isDir(g.path) && statfsSync(g.path).type !== OVERLAYFS_MAGIC)
    .flatMap((g) => {
      const dev = statSync(g.path).dev;
      const workBase = dev === workDev ? workDir : cacheOn(dev);
      return workBase ? [{ root: g.path, workBase }] : [];
    });
  const readOnlyRoots =
    policy.unixSockets.length === 0 ? [] : [...policy.capabilities.fsGrants.filter((g) => g.mode === 'ro').map((g) => g.path), ...policy.systemRoots].filter(isDir);
  if (roots.length === 0 && readOnlyRoots.length === 0) return undefined;
  return { roots, readOnlyRoots };
}
