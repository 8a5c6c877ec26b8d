import { andThen, type MaybePromise } from './maybe-async.js';

/**
 * The half of a WASI input stream that follows from `read`: a read completes before it returns
 * (or, for an HTTP body in-thread under JSPI, before its promise settles), so a blocking read is
 * a read, a skip reads and drops, and the stream is always ready. A stream class extends the
 * shim's `InputStream` through this and defines `read`.
 */
export function readThroughStream(Base: new () => object, ready: () => unknown) {
  return class ReadThrough extends Base {
    read(_len: bigint): MaybePromise<Uint8Array> {
      throw { tag: 'closed' };
    }
    blockingRead(len: bigint): MaybePromise<Uint8Array> {
      return this.read(len);
    }
    skip(len: bigint): MaybePromise<bigint> {
      return andThen(this.read(len), (bytes) => BigInt(bytes.length));
    }
    blockingSkip(len: bigint): MaybePromise<bigint> {
      return this.skip(len);
    }
    subscribe(): unknown {
      return ready();
    }
  };
}
