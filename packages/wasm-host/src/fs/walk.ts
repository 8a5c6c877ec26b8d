import { closeSync, openSync, readlinkSync } from 'node:fs';
import { toErrorCode } from './fs-error.js';
import { rootOfFd, rootOfName, type RootMode, type WalkScope } from './grant-roots.js';
import { fdPath, OPEN } from './proc-fd.js';

/** Symlinks followed in one walk before the guest gets `loop` (Linux's own limit is 40). */
const MAX_LINKS = 40;

/**
 * Where a guest path ends up: the directory descriptor `fd` holding the final component `name`
 * (a single segment: never empty, `.` or `..`, never containing `/`), or the directory itself
 * when `name` is `undefined` (`.`, `a/..`). Operations then act on `fdPath(fd, name)`, which
 * the kernel resolves as "this one name inside this open directory", never as a path string.
 * `depth` counts the directories between the base descriptor and `fd` (0 = the base itself).
 * `release()` closes the intermediate descriptors the walk opened (never the base).
 */
export interface WalkEnd {
  readonly fd: number;
  readonly name: string | undefined;
  readonly depth: number;
  /**
   * The rights in the directory `fd`: the scope's mode, or that of the innermost nested grant the
   * walk passed through on its way there (never `none`: entering a deny entry stops the walk).
   */
  readonly mode: 'ro' | 'rw';
  /** The nested entry the final name itself is (`undefined` when none, or when `name` is). */
  finalRoot(): RootMode | undefined;
  /** The guest path ended in `/`: the final component must be a directory. */
  readonly mustBeDir: boolean;
  /**
   * Call when an operation on the final component failed with ELOOP because it is a symlink:
   * resolves the link (beneath the base, like the rest of the walk) and returns the new end, or
   * `undefined` if the name is no longer a symlink (it was swapped back: retry as is).
   */
  followFinal(): WalkEnd | undefined;
  release(): void;
}

/** A link target as segments; absolute targets name host paths and are refused. */
function targetSegments(target: string): string[] {
  if (target.startsWith('/')) throw 'not-permitted';
  if (target === '') throw 'no-entry';
  return target.split('/').filter((s) => s !== '' && s !== '.');
}

/** The target of `name` in directory `fd`, or `undefined` when it is not a symlink (or is gone). */
function readLinkAt(fd: number, name: string): string | undefined {
  try {
    return readlinkSync(fdPath(fd, name));
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EINVAL' || code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Resolves `path` beneath the directory descriptor `base` with `RESOLVE_BENEATH` semantics:
 * - absolute paths, and `..` above `base`, are `not-permitted`;
 * - each intermediate component is opened relative to its parent's descriptor
 *   (`/proc/self/fd/<parent>/<name>`, O_PATH | O_DIRECTORY | O_NOFOLLOW): the kernel looks up
 *   exactly one name in exactly that directory and never follows a symlink;
 * - `..` pops back to the descriptor the walk came from (a stack of descriptors, not a string),
 *   so a concurrent rename of any directory on the way cannot make `..` leave `base`;
 * - a symlink met on the way is read and its target walked the same way from the directory
 *   holding it; an absolute target, or one climbing above `base`, is `not-permitted`.
 * There is no check-then-use window: the descriptor a step opens is the one the next step uses.
 * No dev/ino check follows each open, on purpose: the only thing to compare against would be a
 * second resolution of a path, which is exactly the race this replaces. What each open can
 * return is fixed by construction: an entry of the directory the parent descriptor holds, never a
 * symlink's target, never `..` (the kernel is never asked to resolve `..`).
 * `followFinal` also resolves a symlink in the last component (for calls that follow links).
 */
export function walkBeneath(base: number, path: string, followFinal: boolean, scope: WalkScope): WalkEnd {
  if (path === '') throw 'no-entry';
  if (path.includes('\0')) throw 'invalid';
  if (path.startsWith('/')) throw 'not-permitted';
  const mustBeDir = path.endsWith('/');
  const stack = [base];
  // the rights at each level of the stack: a nested grant's mode from where the walk entered it
  const modes: ('ro' | 'rw')[] = [scope.mode];
  let links = 0;
  const release = () => {
    while (stack.length > 1) {
      modes.pop();
      closeSync(stack.pop() as number);
    }
  };
  const push = (fd: number) => {
    let entry: RootMode | undefined;
    try {
      entry = rootOfFd(scope.roots, fd);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    if (entry === 'none') {
      closeSync(fd);
      throw 'access';
    }
    stack.push(fd);
    modes.push(entry === undefined || entry === 'keep' ? (modes[modes.length - 1] as 'ro' | 'rw') : entry);
  };
  const expand = (target: string, rest: string[]): string[] => {
    if (++links > MAX_LINKS) throw 'loop';
    return [...targetSegments(target), ...rest];
  };

  const run = (pending: string[], follow: boolean): WalkEnd => {
    try {
      while (pending.length > 0) {
        const seg = pending[0] as string;
        const top = stack[stack.length - 1] as number;
        if (seg === '..') {
          pending.shift();
          if (stack.length === 1) throw 'not-permitted';
          modes.pop();
          closeSync(stack.pop() as number);
          continue;
        }
        if (pending.length === 1) {
          if (!follow) break;
          const target = readLinkAt(top, seg);
          if (target === undefined) break;
          pending = expand(target, []);
          continue;
        }
        let fd: number;
        try {
          fd = openSync(fdPath(top, seg), OPEN.dirSearch);
        } catch (e) {
          const code = (e as { code?: string }).code;
          // O_PATH | O_NOFOLLOW on a symlink gives ENOTDIR (O_DIRECTORY), ELOOP on older kernels
          if (code !== 'ENOTDIR' && code !== 'ELOOP') throw e;
          const target = readLinkAt(top, seg);
          if (target === undefined) {
            if (code === 'ENOTDIR') throw 'not-directory';
            if (++links > MAX_LINKS) throw 'loop'; // swapped back meanwhile: try the name again
            continue;
          }
          pending = expand(target, pending.slice(1));
          continue;
        }
        pending.shift();
        push(fd);
      }
    } catch (e) {
      release();
      throw toErrorCode(e);
    }
    const name = pending[0];
    const end: WalkEnd = {
      fd: stack[stack.length - 1] as number,
      name,
      depth: stack.length - 1,
      mode: modes[modes.length - 1] as 'ro' | 'rw',
      finalRoot: () => (name === undefined ? undefined : rootOfName(scope.roots, end.fd, name)),
      mustBeDir,
      followFinal() {
        if (name === undefined) return undefined;
        let target: string | undefined;
        try {
          target = readLinkAt(end.fd, name);
          if (target === undefined) return undefined;
          return run(expand(target, []), true);
        } catch (e) {
          release();
          throw toErrorCode(e);
        }
      },
      release,
    };
    return end;
  };
  return run(
    path.split('/').filter((s) => s !== '' && s !== '.'),
    followFinal || mustBeDir,
  );
}
