/* Test helper (not shipped API): one guest filesystem over real temp directories. */
import { closeSync } from 'node:fs';
import * as shim from '@bytecodealliance/preview2-shim';
import type { FsGrantEntry } from '@trust/core';
import { createGuestFilesystem } from '../src/fs/guest-filesystem.js';
import { pinGrantDirs } from '../src/fs/pin-grants.js';

export type D = Record<string, (...a: any[]) => any>;

/** The error code a call throws, or 'no throw'. */
export function codeOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return 'no throw';
}

/** Pins `grants` as the host does at load and builds one instance's filesystem over them. */
export function guestFs(grants: FsGrantEntry[]) {
  const pinned = pinGrantDirs(grants);
  const io = shim.io as any;
  const gfs = createGuestFilesystem(
    pinned.dirs.map((d) => ({ guestPath: d.path, mode: d.mode, fd: d.fd })),
    {
      InputStream: io.streams.InputStream,
      OutputStream: io.streams.OutputStream,
      IoError: io.error.Error,
      ready: () => (shim.clocks.monotonicClock as any).subscribeDuration(0n),
    },
  );
  const dirs = gfs.preopens.getDirectories() as [D, string][];
  const dir = (path: string) => dirs.find(([, p]) => p === path)?.[0] as D;
  return {
    gfs,
    dir,
    dispose() {
      gfs.close();
      pinned.close();
    },
  };
}

export const drop = (d: unknown) => (d as { [Symbol.dispose]: () => void })[Symbol.dispose ?? Symbol.for('dispose')]();
export { closeSync };
