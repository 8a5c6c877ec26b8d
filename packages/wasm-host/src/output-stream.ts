import type { MaybePromise } from './maybe-async.js';

/**
 * The half of a WASI output stream that follows from `write`: a write completes before it returns
 * (or, for an HTTP body in-thread under JSPI, before its promise settles), so flushes are no-ops,
 * zeroes are written as bytes, splicing is not offered and the stream is always ready. Each
 * stream class extends the shim's `OutputStream` through this and defines only `checkWrite` and
 * `write`.
 */
export function writeThroughStream(Base: new () => object, ready: () => unknown) {
  return class WriteThrough extends Base {
    write(_buf: Uint8Array): MaybePromise<void> {
      throw { tag: 'closed' };
    }
    blockingWriteAndFlush(buf: Uint8Array): MaybePromise<void> {
      return this.write(buf);
    }
    flush(): void {}
    blockingFlush(): void {}
    writeZeroes(n: bigint): MaybePromise<void> {
      return this.write(new Uint8Array(Number(n)));
    }
    blockingWriteZeroesAndFlush(n: bigint): MaybePromise<void> {
      return this.writeZeroes(n);
    }
    splice(): bigint {
      throw { tag: 'closed' };
    }
    blockingSplice(): bigint {
      throw { tag: 'closed' };
    }
    subscribe(): unknown {
      return ready();
    }
  };
}
