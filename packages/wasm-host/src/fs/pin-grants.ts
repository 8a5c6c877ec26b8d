import { closeSync, lstatSync, openSync } from 'node:fs';
import type { FsGrantEntry } from '@trust/core';
import { wasmError } from '../errors.js';
import { fdPath, OPEN, procFdUnavailable } from './proc-fd.js';

/** A grant's directory, opened by the host at load. */
export interface PinnedDir {
  readonly path: string;
  readonly mode: 'ro' | 'rw';
  readonly fd: number;
}

/**
 * Opens each granted directory at load and keeps the descriptor for the plugin's lifetime, so a
 * later rename or symlink swap of the host path cannot move the grant: the guest is confined
 * beneath the directory that was there at load. The path is walked from `/` one component at a
 * time with O_NOFOLLOW (through `/proc/self/fd`, see proc-fd.ts), so a grant reached through a
 * symlink anywhere on its path is refused, not followed.
 *
 * Throws `WASM_FS_UNSUPPORTED` where descriptor-relative resolution is not available (there is
 * no fallback to resolving path strings), and `WASM_FS_GRANT_INVALID` when a directory is
 * missing, is not a directory, or is reached through a symlink. On error nothing stays open.
 * `[]` pins nothing (and needs no /proc).
 *
 * `check`, when given, is called with each directory right after it is opened and before the
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
): { dirs: PinnedDir[]; close(): void } {
  const dirs: PinnedDir[] = [];
  const close = () => {
    for (const d of dirs.splice(0)) closeSync(d.fd);
  };
  if (grants.length === 0) return { dirs, close };
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
      const dir = { path: g.path, mode: g.mode, fd: openBeneathRoot(root, g.path) };
      dirs.push(dir);
      check?.(dir);
    }
  } catch (e) {
    close();
    throw e;
  } finally {
    closeSync(root);
  }
  return { dirs, close };
}

function openBeneathRoot(root: number, path: string): number {
  const segs = path.split('/').slice(1);
  let cur = root;
  let walked = '';
  try {
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i] as string;
      const last = i === segs.length - 1;
      let next: number;
      try {
        next = openSync(fdPath(cur, seg), last ? OPEN.dirRead : OPEN.dirSearch);
      } catch (e) {
        throw grantError(path, `${walked}/${seg}`, cur, seg, e);
      }
      if (cur !== root) closeSync(cur);
      cur = next;
      walked += `/${seg}`;
    }
    return cur;
  } catch (e) {
    if (cur !== root) closeSync(cur);
    throw e;
  }
}

function grantError(grant: string, at: string, dir: number, name: string, cause: unknown) {
  const code = (cause as { code?: string }).code;
  let link = false;
  try {
    link = lstatSync(fdPath(dir, name)).isSymbolicLink();
  } catch {
    // missing: reported below
  }
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
  return wasmError('WASM_FS_GRANT_INVALID', `fs grant ${grant} ${what}`, {
    cause,
    hint: link
      ? 'grant the real directory the symlink points to ' +
        '(a grant must not pass through a symlink, which could be swapped later)'
      : 'create the directory before loading the plugin, or remove the grant',
  });
}
