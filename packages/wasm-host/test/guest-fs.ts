/* Test helper (not shipped API): one guest filesystem over real temp directories. */
import { closeSync } from 'node:fs';
import * as shim from '@bytecodealliance/preview2-shim';
import type { FsGrantEntry } from '@trust/core';
import { createGuestFilesystem } from '../src/fs/guest-filesystem.js';
import { pinGrantDirs } from '../src/fs/pin-grants.js';

/**
 * A guest resource (descriptor, directory stream, byte stream) as the tests call it: every method
 * optional, since each resource has only some of them, and callable by name with WASI values.
 */
export interface D {
  [method: string]: ((...a: never[]) => unknown) | undefined;
  openAt?(pathFlags: object, path: string, openFlags: object, flags: object): D;
  read?(len: bigint, offset?: bigint): [Uint8Array, boolean];
  write?(buf: Uint8Array, offset: bigint): bigint;
  setSize?(size: bigint): void;
  statAt?(pathFlags: object, path: string): { size: bigint; type: string };
  createDirectoryAt?(path: string): void;
  readDirectory?(): D;
  readDirectoryEntry?(): { name: string } | undefined;
  readViaStream?(offset: bigint): D;
  writeViaStream?(offset: bigint): D;
  appendViaStream?(): D;
  blockingRead?(len: bigint): Uint8Array;
  blockingWriteAndFlush?(buf: Uint8Array): void;
  linkAt?(...a: unknown[]): unknown;
  renameAt?(...a: unknown[]): unknown;
  symlinkAt?(...a: unknown[]): unknown;
  unlinkFileAt?(...a: unknown[]): unknown;
  setTimes?(...a: unknown[]): unknown;
  setTimesAt?(...a: unknown[]): unknown;
}

/** The preview2-shim classes the guest filesystem extends, as the host passes them. */
interface ShimIo {
  readonly streams: { readonly InputStream: new () => object; readonly OutputStream: new () => object };
  readonly error: { readonly Error: new (payload: unknown) => object };
}

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
  const io = shim.io as unknown as ShimIo;
  const clock = shim.clocks.monotonicClock as unknown as { subscribeDuration(ns: bigint): unknown };
  const gfs = createGuestFilesystem(
    pinned.dirs.flatMap((d) => (d.mode === 'none' ? [] : [{ guestPath: d.path, mode: d.mode, fd: d.fd }])),
    {
      InputStream: io.streams.InputStream,
      OutputStream: io.streams.OutputStream,
      IoError: io.error.Error,
      ready: () => clock.subscribeDuration(0n),
    },
    pinned.roots,
  );
  const dirs = gfs.preopens.getDirectories() as [D, string][];
  const dir = (path: string) => dirs.find(([, p]) => p === path)?.[0] as D;
  return {
    gfs,
    dir,
    skipped: pinned.skipped,
    dispose() {
      gfs.close();
      pinned.close();
    },
  };
}

export const drop = (d: unknown) => (d as { [Symbol.dispose]: () => void })[Symbol.dispose ?? Symbol.for('dispose')]();
export { closeSync };
