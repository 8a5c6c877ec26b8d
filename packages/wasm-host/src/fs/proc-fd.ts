import { constants, fstatSync, statSync, statfsSync } from 'node:fs';

/**
 * Node has no `openat`. On Linux, `/proc/self/fd/<fd>` is a "magic link": the kernel resolves it
 * to the open file itself (the dentry the descriptor holds), not to a path string. So
 * `open("/proc/self/fd/<dirfd>/<name>", O_NOFOLLOW)` is `openat(dirfd, name, O_NOFOLLOW)`: the one
 * component `name` is looked up in the directory the descriptor refers to, wherever that
 * directory has been renamed to meanwhile, and a symlink there is never followed by the kernel.
 * Every guest path is walked this way, one component per call (see walk.ts), so no host path
 * string is ever resolved on the guest's behalf.
 */
export const PROC_FD = '/proc/self/fd';

/** The magic-link path of `fd`, or of the single component `name` inside directory `fd`. */
export function fdPath(fd: number, name?: string): string {
  return name === undefined ? `${PROC_FD}/${fd}` : `${PROC_FD}/${fd}/${name}`;
}

/** `O_PATH` is not in Node's constants; 010000000 on every Linux architecture Node supports. */
const O_PATH = 0o10000000;
const PROC_SUPER_MAGIC = 0x9fa0;

/** open(2) flags used by the walk. Every open carries O_NOFOLLOW (and libuv adds O_CLOEXEC). */
export const OPEN = Object.freeze({
  /** An intermediate directory of a walk: search only, never a symlink. */
  dirSearch: O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW,
  /** A directory a guest holds (it may list it). */
  dirRead: constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
  /**
   * A directory opened again through its own magic link (`/proc/self/fd/<fd>`, no name): the
   * link must be followed, and it leads to exactly the open directory, so no O_NOFOLLOW.
   */
  dirReopen: constants.O_RDONLY | constants.O_DIRECTORY,
  nofollow: constants.O_NOFOLLOW,
  /** A FIFO planted by someone else must not block the plugin's thread in open(). */
  nonblock: constants.O_NONBLOCK,
});

/**
 * Why descriptor-relative resolution is not available here, or `undefined` when it is: Linux with
 * a real procfs at /proc whose magic links resolve to the descriptor's own file. Checked with a
 * descriptor of a directory the caller already opened.
 */
export function procFdUnavailable(probeFd: number): string | undefined {
  if (process.platform !== 'linux') return `${process.platform} has no /proc/self/fd`;
  try {
    if (BigInt(statfsSync('/proc', { bigint: true }).type) !== BigInt(PROC_SUPER_MAGIC))
      return '/proc is not a procfs mount';
    const viaProc = statSync(fdPath(probeFd), { bigint: true });
    const direct = fstatSync(probeFd, { bigint: true });
    if (viaProc.dev !== direct.dev || viaProc.ino !== direct.ino)
      return `${PROC_FD}/<fd> does not resolve to the descriptor's file`;
  } catch (e) {
    return `${PROC_FD} is not usable: ${(e as Error).message}`;
  }
  return undefined;
}
