import { closeSync, fstatSync, lstatSync, openSync } from 'node:fs';
import { isPathWithin, type FsGrantEntry } from '@trust/core';
import { wasmError } from '../errors.js';
import { identityOf, type EntryMode, type GrantRoots, type RootMode } from './grant-roots.js';
import { fdPath, OPEN, procFdUnavailable } from './proc-fd.js';

/** `O_PATH`: a handle to hold and stat, not to read (a deny entry is never given to the guest). */
const O_PATH = 0o10000000;

/** An fs entry opened by the host at load: a grant's directory, or what a deny entry hides. */
export interface PinnedDir {
  readonly path: string;
  readonly mode: EntryMode;
  readonly fd: number;
}

/** An fs entry whose path did not exist at load: the guest sees no preopen for it. */
export interface SkippedGrant {
  readonly path: string;
  readonly mode: EntryMode;
  /** What was missing, for the load result and the audit. */
  readonly reason: string;
}

/**
 * Opens each granted directory at load and keeps the descriptor for the plugin's lifetime, so a
 * later rename or symlink swap of the host path cannot move the grant: the guest is confined
 * beneath the directory that was there at load. The path is walked from `/` one component at a
 * time with O_NOFOLLOW (through `/proc/self/fd`, see proc-fd.ts), so a grant reached through a
 * symlink anywhere on its path is refused, not followed.
 *
 * A grant whose directory does not exist is skipped (`skipped`, with the reason): the guest sees
 * no such preopen and its `open()` fails as on a host without the directory. A deny entry
 * (`none`) is pinned as whatever it names (a directory or a file, with O_PATH, never handed to
 * the guest); a missing one is skipped too (there is nothing to hide at load). `roots` holds the
 * identity of every pinned entry that lies inside another entry (see grant-roots.ts).
 *
 * Throws `WASM_FS_UNSUPPORTED` where descriptor-relative resolution is not available (there is
 * no fallback to resolving path strings), and `WASM_FS_GRANT_INVALID` when a grant is not a
 * directory, or an entry is reached through a symlink. On error nothing stays open.
 * `[]` pins nothing (and needs no /proc).
 *
 * `check`, when given, is called with each grant's directory right after it is opened and before the
 * guest gets it; throwing refuses the load (everything opened is closed). It sees the descriptor
 * itself, so a caller that inspects the open directory (its device and inode, its parents through
 * `/proc/self/fd/<fd>/..`) judges exactly what the guest will hold: no rename between a check on
 * a path string and this open can change it.
 *
 * @example
 * const pinned = pinGrantDirs(parseCapabilities(['fs:rw:/var/lib/app']).fsGrants);
 * // pinned.dirs[0].fd confines the guest; pinned.close() when the plugin is gone
 */
export function pinGrantDirs(
  grants: readonly FsGrantEntry[],
  check?: (dir: PinnedDir) => void,
): { dirs: PinnedDir[]; skipped: SkippedGrant[]; roots: GrantRoots; close(): void } {
  const dirs: PinnedDir[] = [];
  const skipped: SkippedGrant[] = [];
  const roots = new Map<string, RootMode>();
  // the directories walked through on the way to each entry, by path (see RootMode's `keep`)
  const between = new Map<string, string>();
  const close = () => {
    for (const d of dirs.splice(0)) closeSync(d.fd);
  };
  if (grants.length === 0) return { dirs, skipped, roots, close };
  const root = openSync('/', OPEN.dirRead);
  try {
    const why = procFdUnavailable(root);
    if (why) {
      throw wasmError('WASM_FS_UNSUPPORTED', `fs grants cannot be confined on this host: ${why}`, {
        hint:
          'fs:ro/fs:rw grants need Linux with /proc mounted (guest paths are resolved beneath descriptors ' +
          'through /proc/self/fd); remove the fs grants or run the host on Linux',
      });
    }
    for (const g of grants) {
      const opened = openBeneathRoot(root, g.path, g.mode === 'none', (path, fd) => {
        if (!between.has(path)) between.set(path, identityOf(fstatSync(fd, { bigint: true })));
      });
      if (typeof opened === 'string') {
        skipped.push({ path: g.path, mode: g.mode, reason: opened });
        continue;
      }
      const dir = { path: g.path, mode: g.mode, fd: opened };
      dirs.push(dir);
      if (g.mode !== 'none') check?.(dir);
    }
    for (const d of dirs) {
      const outer = dirs.filter((o) => o !== d && isPathWithin(o.path, d.path));
      if (outer.length === 0) continue;
      roots.set(identityOf(fstatSync(d.fd, { bigint: true })), d.mode);
      for (const [path, id] of between) {
        const inside = outer.some((o) => o.path !== path && isPathWithin(o.path, path));
        if (inside && isPathWithin(path, d.path) && !roots.has(id)) roots.set(id, 'keep');
      }
    }
  } catch (e) {
    close();
    throw e;
  } finally {
    closeSync(root);
  }
  return { dirs, skipped, roots, close };
}

/** The descriptor of `path`, or why it was skipped (it, or a directory on its way, is missing). */
function openBeneathRoot(
  root: number,
  path: string,
  any: boolean,
  onBetween: (path: string, fd: number) => void,
): number | string {
  const segs = path.split('/').slice(1);
  let cur = root;
  let walked = '';
  try {
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i] as string;
      const last = i === segs.length - 1;
      let next: number;
      try {
        next = openSync(fdPath(cur, seg), last ? (any ? O_PATH | OPEN.nofollow : OPEN.dirRead) : OPEN.dirSearch);
      } catch (e) {
        const err = grantError(path, `${walked}/${seg}`, cur, seg, e);
        if (err.error) throw err.error;
        if (cur !== root) closeSync(cur);
        return err.missing;
      }
      if (cur !== root) closeSync(cur);
      cur = next;
      walked += `/${seg}`;
      if (!last) onBetween(walked, cur);
    }
  } catch (e) {
    if (cur !== root) closeSync(cur);
    throw e;
  }
  if (any && fstatSync(cur).isSymbolicLink()) {
    // O_PATH | O_NOFOLLOW holds a final symlink itself: a deny entry must name the real path
    closeSync(cur);
    throw wasmError('WASM_FS_GRANT_INVALID', `fs entry ${path} is a symlink`, {
      hint: 'name the real path the symlink points to in "fs:none:..." (a symlink could be swapped later)',
    });
  }
  return cur;
}

function grantError(
  grant: string,
  at: string,
  dir: number,
  name: string,
  cause: unknown,
): { missing: string; error?: undefined } | { missing?: undefined; error: Error } {
  const code = (cause as { code?: string }).code;
  let link = false;
  try {
    link = lstatSync(fdPath(dir, name)).isSymbolicLink();
  } catch {
    // missing: reported below
  }
  if (!link && code === 'ENOENT') return { missing: at === grant ? 'does not exist' : `${at} is missing` };
  const what = link
    ? `is reached through a symlink (${at})`
    : code === 'ENOENT'
      ? at === grant
        ? 'does not exist'
        : `does not exist (${at} is missing)`
      : code === 'ENOTDIR'
        ? at === grant
          ? 'is not a directory'
          : `is not a directory (${at} is not one)`
        : `cannot be opened (${code ?? String(cause)})`;
  const error = wasmError('WASM_FS_GRANT_INVALID', `fs grant ${grant} ${what}`, {
    cause,
    hint: link
      ? 'grant the real directory the symlink points to ' +
        '(a grant must not pass through a symlink, which could be swapped later)'
      : 'grant a directory (a grant names a directory; a file is reached through its directory)',
  });
  return { error };
}
