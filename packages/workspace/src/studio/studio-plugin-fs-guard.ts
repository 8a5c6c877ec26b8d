import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { TrustError } from '@trust/core';
import type { WorkspaceLayout } from '../demo/demo-workspace.js';
import { PLUGIN_EGRESS_POLICY_FILE } from './studio-plugin-egress.js';

/** One of the studio's own files or folders, named for the refusal message. */
export interface StudioControlPath {
  readonly label: string;
  readonly path: string;
}

/** What no plugin's fs grant may reach. */
export interface StudioControlPaths {
  /**
   * Files and folders a grant root may not equal or contain: the workspace root, its egress
   * policy, token, state and audit files. A grant elsewhere inside the workspace (`data/x`) is fine.
   */
  readonly exposed: readonly StudioControlPath[];
  /** Folders a grant root may not equal, contain, nor lie inside: keys, plugins, agents, caches. */
  readonly sealed: readonly StudioControlPath[];
}

/** A grant's directory as the plugin host opened it (wasm-host's `PinnedDir`). */
interface OpenedRoot {
  readonly path: string;
  readonly fd: number;
}

/** `O_PATH` (not in Node's constants): a handle for fstat and `..`, no read access needed. */
const O_PATH = 0o10000000;
/** Deeper than any real tree; a longer `..` chain is refused rather than walked forever. */
const MAX_DEPTH = 4096;

/**
 * The check the studio gives the plugin host (`fsRootCheck`) so no fs grant reaches the studio's
 * own files. Why this is sound and not a path-string check:
 *
 * - It runs on the descriptor the host opened for the grant (walked from `/` with O_NOFOLLOW on
 *   every component, so a grant through a symlink is already refused there), right before the
 *   guest gets it. What is checked is what the guest holds: a rename or symlink swap of the
 *   grant's path before or after that open cannot make the two differ.
 * - Directories are compared by device and inode, never by name. The grant's own ancestors are
 *   found through the kernel (`/proc/self/fd/<fd>/..`, one level at a time), as are those of each
 *   control path (opened now, following the owner's own symlinks; a missing one stands for its
 *   nearest existing folder, where it could be created).
 * - Refused: a grant root that is, or is an ancestor of, any control path (or of the folder holding
 *   it, so a control file that is itself a symlink is covered on both ends); and one that lies
 *   inside a sealed folder.
 *
 * Not covered (state in docs): a hard link to a control file placed by the owner inside a granted
 * folder, and a bind mount of the workspace inside one (its inode differs from the ancestor chain).
 *
 * @example
 * const fsRootCheck = studioFsGuard({ exposed: [{ label: 'workspace', path: ws }], sealed: [] });
 * await host.load(files, { grants, fsRootCheck });
 */
export function studioFsGuard(control: StudioControlPaths): (root: OpenedRoot) => void {
  return (root) => {
    try {
      check(control, root);
    } catch (e) {
      if (e instanceof TrustError) throw e;
      // Fail closed: a folder that cannot be inspected (permissions, /proc) refuses the grant.
      throw new TrustError(
        'STUDIO_PLUGIN_GRANT_COVERS_CONTROL',
        `fs grant ${root.path} cannot be checked against the studio's files: ${(e as Error).message}`,
        { cause: e, hint: 'make sure the workspace and its folders can be opened by the studio, then load again' },
      );
    }
  };
}

/** Throws when the opened grant root holds a control path, or lies inside a sealed folder. */
function check(control: StudioControlPaths, root: OpenedRoot): void {
  const inside = chainOf(root.fd, root.path);
  const self = inside[0] as string;
  for (const c of [...control.exposed, ...control.sealed]) {
    if (controlChain(c.path).includes(self)) throw covers(root.path, c, 'holds');
  }
  const above = new Set(inside);
  for (const c of control.sealed) {
    const id = idOfExisting(c.path);
    if (id !== undefined && above.has(id)) throw covers(root.path, c, 'lies inside');
  }
}

function covers(grant: string, c: StudioControlPath, how: 'holds' | 'lies inside'): TrustError {
  return new TrustError(
    'STUDIO_PLUGIN_GRANT_COVERS_CONTROL',
    `fs grant ${grant} ${how} the studio's ${c.label} (${c.path}); a plugin must never reach the studio's own files`,
    {
      hint:
        'grant a narrower directory that holds none of the studio files, for example <workspace>/data/NAME ' +
        '(not the workspace itself, nor anything in keys/, plugins/ or agents/)',
    },
  );
}

/** Device:inode of `fd`'s directory and of each of its ancestors up to `/`, nearest first. */
function chainOf(fd: number, label: string): string[] {
  const ids: string[] = [];
  let cur = fd;
  try {
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const id = idOf(cur);
      if (ids.includes(id)) return ids; // `/..` is `/`
      ids.push(id);
      const parent = openSync(`/proc/self/fd/${cur}/..`, O_PATH | constants.O_DIRECTORY);
      if (cur !== fd) closeSync(cur);
      cur = parent;
    }
  } finally {
    if (cur !== fd) closeSync(cur);
  }
  throw new TrustError('STUDIO_PLUGIN_GRANT_COVERS_CONTROL', `fs grant ${label} is nested too deep to be checked`, {
    hint: 'grant a directory fewer than 4096 levels below /',
  });
}

/** The chain of a control path (or of its nearest existing folder) and of the folder holding it. */
function controlChain(path: string): string[] {
  const abs = resolve(path);
  return [...chainOfPath(abs), ...chainOfPath(dirname(abs))];
}

function chainOfPath(path: string): string[] {
  const fd = openExisting(path);
  try {
    if (fstatSync(fd).isDirectory()) return chainOf(fd, path);
    // A file: itself, then the chain of the folder that really holds it (the kernel's name for it).
    return [idOf(fd), ...chainOfPath(dirname(readlinkSync(`/proc/self/fd/${fd}`)))];
  } finally {
    closeSync(fd);
  }
}

/** Opens `path` (following symlinks), or its nearest existing ancestor when it does not exist. */
function openExisting(path: string): number {
  for (let p = path; ; p = dirname(p)) {
    try {
      return openSync(p, O_PATH);
    } catch (e) {
      if ((e as { code?: string }).code !== 'ENOENT' || p === dirname(p)) throw e;
    }
  }
}

/** Device:inode of an existing path (symlinks followed), `undefined` when it does not exist. */
function idOfExisting(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(resolve(path), O_PATH);
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    return idOf(fd);
  } finally {
    closeSync(fd);
  }
}

function idOf(fd: number): string {
  const st = fstatSync(fd, { bigint: true });
  return `${st.dev}:${st.ino}`;
}

/**
 * The control paths of a workspace: its root, policy and token files (exposed), and its keys,
 * plugins and agents folders (sealed), plus `more` (the studio's logs and caches outside it).
 */
export function workspaceControlPaths(
  layout: Pick<WorkspaceLayout, 'root' | 'agents' | 'plugins' | 'keys' | 'sandboxPolicy' | 'tokenFile'>,
  more: Partial<StudioControlPaths> = {},
): StudioControlPaths {
  return {
    exposed: [
      { label: 'workspace', path: layout.root },
      { label: 'egress policy', path: join(layout.root, PLUGIN_EGRESS_POLICY_FILE) },
      { label: 'sandbox policy', path: layout.sandboxPolicy },
      { label: 'control token', path: layout.tokenFile },
      ...(more.exposed ?? []),
    ],
    sealed: [
      { label: 'trusted keys folder', path: layout.keys },
      { label: 'plugins folder', path: layout.plugins },
      { label: 'agents folder', path: layout.agents },
      ...(more.sealed ?? []),
    ],
  };
}
