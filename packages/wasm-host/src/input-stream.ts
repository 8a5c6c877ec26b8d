/**
 * The half of a WASI input stream that follows from `read`: reads here are synchronous, so a
 * blocking read is a read, a skip reads and drops, and the stream is always ready. A stream class
 * extends the shim's `InputStream` through this and defines `read`.
 */
export function readThroughStream(Base: new () => object, ready: () => unknown) {
  return class ReadThrough extends Base {
    read(_len: bigint): Uint8Array {
      throw { tag: 'closed' };
    }
    blockingRead(len: bigint): Uint8Array {
      return this.read(len);
    }
    skip(len: bigint): bigint {
      return BigInt(this.read(len).length);
    }
    blockingSkip(len: bigint): bigint {
      return this.skip(len);
    }
    subscribe(): unknown {
      return ready();
    }
  };
}
