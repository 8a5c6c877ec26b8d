import { fstatSync, readSync, writeSync } from 'node:fs';
import { readThroughStream } from '../input-stream.js';
import { writeThroughStream } from '../output-stream.js';
import type { FdRef } from './fd-ref.js';
import { toErrorCode } from './fs-error.js';

/** Largest single read served at once (a guest may ask for 4 GiB; it gets at most this). */
const MAX_READ = 4 * 1024 * 1024;
const WRITE_BUDGET = 1024n * 1024n;

export interface StreamDeps {
  readonly InputStream: new () => object;
  readonly OutputStream: new () => object;
  readonly IoError: new (payload: unknown) => object;
  readonly ready: () => unknown;
}

/** Reads `len` bytes (at most MAX_READ) at `offset`: the bytes, fewer at end of file. */
export function readAt(fd: number, len: number, offset: number): Uint8Array {
  const buf = Buffer.allocUnsafe(Math.min(len, MAX_READ));
  const n = buf.length === 0 ? 0 : readSync(fd, buf, 0, buf.length, offset);
  return new Uint8Array(buf.buffer, buf.byteOffset, n);
}

/** Writes all of `buf` at `offset` (a short write is continued). */
export function writeAllAt(fd: number, buf: Uint8Array, offset: number): number {
  let done = 0;
  while (done < buf.length) {
    const n = writeSync(fd, buf, done, buf.length - done, offset + done);
    if (n === 0) break; // no progress: report what was written rather than spin
    done += n;
  }
  return done;
}

/**
 * `wasi:io/streams` over a host file descriptor, as `read-via-stream` / `write-via-stream` /
 * `append-via-stream` return them. Subclasses of the shim's stream classes, because jco's glue
 * checks `instanceof`. I/O is synchronous on the plugin's thread, so the streams are always ready.
 */
export function createFileStreams(deps: StreamDeps) {
  const failed = (e: unknown) => ({
    tag: 'last-operation-failed',
    val: new deps.IoError({ fsErrorCode: toErrorCode(e) }),
  });
  const dispose = Symbol.dispose ?? Symbol.for('dispose');

  class FileInput extends readThroughStream(deps.InputStream, deps.ready) {
    #ref: FdRef;
    #offset: number;
    constructor(ref: FdRef, offset: bigint) {
      super();
      this.#ref = ref;
      this.#offset = Number(offset);
    }
    override read(len: bigint): Uint8Array {
      let fd: number;
      try {
        fd = this.#ref.fd();
      } catch {
        throw { tag: 'closed' };
      }
      let bytes: Uint8Array;
      try {
        bytes = readAt(fd, Number(len), this.#offset);
      } catch (e) {
        throw failed(e);
      }
      if (bytes.length === 0 && len > 0n) throw { tag: 'closed' };
      this.#offset += bytes.length;
      return bytes;
    }
    [dispose](): void {
      this.#ref.release();
    }
  }

  class FileOutput extends writeThroughStream(deps.OutputStream, deps.ready) {
    #ref: FdRef;
    #offset: number;
    #append: boolean;
    constructor(ref: FdRef, offset: bigint, append: boolean) {
      super();
      this.#ref = ref;
      this.#offset = Number(offset);
      this.#append = append;
    }
    checkWrite(): bigint {
      this.#ref.fd();
      return WRITE_BUDGET;
    }
    override write(buf: Uint8Array): void {
      let fd: number;
      try {
        fd = this.#ref.fd();
      } catch {
        throw { tag: 'closed' };
      }
      try {
        if (this.#append) this.#offset = Number(fstatSync(fd).size);
        this.#offset += writeAllAt(fd, buf, this.#offset);
      } catch (e) {
        throw failed(e);
      }
    }
    [dispose](): void {
      this.#ref.release();
    }
  }

  return {
    input: (ref: FdRef, offset: bigint): unknown => new FileInput(ref, offset),
    output: (ref: FdRef, offset: bigint, append: boolean): unknown => new FileOutput(ref, offset, append),
  };
}
