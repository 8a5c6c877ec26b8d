import { lstatSync, mkdirSync, statfsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { TrustError } from '@trust/core';
import type { SandboxPolicy } from './policy.js';

/** statfs(2) magic of overlayfs: an overlay cannot be the upper layer of another. */
const OVERLAYFS_MAGIC = 0x794c7630;

/** The roots the launcher overlays, and those it cannot (see `prepareProtectedOverlay`). */
export interface ProtectedOverlay {
  readonly roots: { root: string; workBase: string }[];
  readonly readOnlyRoots: string[];
  /** Writable roots no overlay can be made for, and why: their missing protected names would need host placeholders. */
  readonly unoverlaid: { root: string; why: string }[];
}

/**
 * Where overlay work directories go when the sandbox's work directory is on another filesystem
 * than a root: the per-user cache (`$XDG_CACHE_HOME/trust/overlay-work`, else
 * `~/.cache/trust/overlay-work`), which usually shares the filesystem of the projects in `$HOME`.
 */
export function defaultOverlayCache(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'trust', 'overlay-work');
}

/** The policy's writable grants that are directories now (the roots protected names live in). */
export function writableDirs(policy: SandboxPolicy): string[] {
  return policy.capabilities.fsGrants
    .filter((g) => g.mode === 'rw' && statSync(g.path, { throwIfNoEntry: false })?.isDirectory() === true)
    .map((g) => g.path);
}

const inside = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/**
 * A private directory of this user at `dir`: made 0700 if missing; `undefined` unless it is then
 * a real directory (not a symlink) owned by this user with mode 0700 (someone else's entry in a
 * shared, sticky directory such as /dev/shm is never used, nor changed).
 */
function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  const st = lstatSync(dir, { throwIfNoEntry: false });
  const uid = process.getuid?.();
  return st?.isDirectory() && (st.mode & 0o777) === 0o700 && (uid === undefined || st.uid === uid) ? dir : undefined;
}

/**
 * Decides, once per sandbox, which roots the launcher overlays in each run's namespace: the
 * writable roots not on overlayfs themselves, each with a work base on its own filesystem and
 * outside the user's tree (an overlay's work directory must be on its upper layer's filesystem):
 * `workDir` or `cacheDir` when one shares it, else a hidden directory of this user
 * (`.trust-overlay-<uid>`, 0700) in the nearest ancestor of the root on that filesystem that lies
 * outside every grant and system root. Their missing protected names then exist only inside each
 * run. A root for which none of this works is listed in `unoverlaid` (the caller refuses it, or
 * keeps host placeholders there when the policy accepts `host-placeholders`). And, with
 * `unixSockets` (which allows AF_UNIX), the read-only grants and system roots, as read-only
 * overlays: a socket seen through an overlay is another inode, which no listener is bound to, so
 * only the named sockets (bound back by the launcher) answer.
 *
 * @example
 * const overlay = prepareProtectedOverlay(policy, '/tmp/trust-sandbox-x');
 * // { roots: [{ root, workBase }], readOnlyRoots, unoverlaid }
 */
export function prepareProtectedOverlay(
  policy: SandboxPolicy,
  workDir: string,
  cacheDir: string = defaultOverlayCache(),
): ProtectedOverlay {
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
  const visible = [...policy.capabilities.fsGrants.map((g) => g.path), ...policy.systemRoots];
  const hiddenOn = (root: string, dev: number): string | undefined => {
    for (let dir = dirname(root); ; dir = dirname(dir)) {
      const st = statSync(dir, { throwIfNoEntry: false });
      if (st?.dev !== dev) return undefined;
      const base = join(dir, `.trust-overlay-${process.getuid?.() ?? 'user'}`);
      // In a directory others may write without the sticky bit, they could rename our entry away
      // and put a link in its place: never there.
      const shared = (st.mode & 0o002) !== 0 && (st.mode & 0o1000) === 0;
      const found = shared || visible.some((v) => inside(base, v)) ? undefined : privateDir(base);
      if (found) return found;
      if (dir === '/') return undefined;
    }
  };
  const workDev = statSync(workDir).dev;
  const roots: ProtectedOverlay['roots'] = [];
  const unoverlaid: ProtectedOverlay['unoverlaid'] = [];
  for (const g of policy.capabilities.fsGrants) {
    if (g.mode !== 'rw' || !isDir(g.path)) continue;
    if (statfsSync(g.path).type === OVERLAYFS_MAGIC) {
      unoverlaid.push({ root: g.path, why: 'it is on overlayfs, which cannot be the upper layer of another overlay' });
      continue;
    }
    const dev = statSync(g.path).dev;
    const workBase = dev === workDev ? workDir : (cacheOn(dev) ?? hiddenOn(g.path, dev));
    if (workBase) roots.push({ root: g.path, workBase });
    else
      unoverlaid.push({
        root: g.path,
        why: 'no private directory of this user can be made on its filesystem outside the grants',
      });
  }
  const readOnlyRoots =
    policy.unixSockets.length === 0
      ? []
      : [
          ...policy.capabilities.fsGrants.filter((g) => g.mode === 'ro').map((g) => g.path),
          ...policy.systemRoots,
        ].filter(isDir);
  return { roots, readOnlyRoots, unoverlaid };
}

/**
 * Fails closed for writable roots whose missing protected names could only be protected by
 * placeholder files in the user's tree: `SANDBOX_ROOT_NOT_OVERLAYABLE` naming the first, unless
 * the policy accepts `host-placeholders` (then `true`: the caller records the degraded mode).
 *
 * @example
 * if (refuseUnoverlaid(policy, overlay.unoverlaid)) degraded.push('host-placeholders');
 */
export function refuseUnoverlaid(policy: SandboxPolicy, unoverlaid: ProtectedOverlay['unoverlaid']): boolean {
  if (unoverlaid.length === 0) return false;
  if (policy.allowDegraded.includes('host-placeholders')) return true;
  const { root, why } = unoverlaid[0]!;
  throw new TrustError(
    'SANDBOX_ROOT_NOT_OVERLAYABLE',
    `the writable grant ${root} cannot be overlaid (${why}), so its missing protected names ` +
      `(.bashrc, .mcp.json, ...) could only be protected by placeholder files created in it`,
    {
      hint:
        `put the sandbox's workDir on the filesystem of ${root}, grant it read-only ` +
        `(fs:ro:${root}), or accept placeholders in it with allowDegraded: ["host-placeholders"]`,
    },
  );
}
