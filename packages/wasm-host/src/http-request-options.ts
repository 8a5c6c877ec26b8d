/**
 * The `wasi:http` `request-options` resource: the guest's timeouts, in nanoseconds. The host
 * applies connect and first-byte as one overall timeout (capped by the host's own);
 * between-bytes is kept but not applied separately (egress's body timeout applies).
 */
export class RequestOptions {
  connect: bigint | undefined;
  firstByte: bigint | undefined;
  betweenBytes: bigint | undefined;
  connectTimeout() {
    return this.connect;
  }
  setConnectTimeout(d: bigint | undefined) {
    this.connect = d;
  }
  firstByteTimeout() {
    return this.firstByte;
  }
  setFirstByteTimeout(d: bigint | undefined) {
    this.firstByte = d;
  }
  betweenBytesTimeout() {
    return this.betweenBytes;
  }
  setBetweenBytesTimeout(d: bigint | undefined) {
    this.betweenBytes = d;
  }
  /** The smaller of the connect and first-byte timeouts in ms (at least 1), or `undefined`. */
  overallTimeoutMs(): number | undefined {
    const ns = [this.connect, this.firstByte].filter((x): x is bigint => typeof x === 'bigint');
    // whole milliseconds, rounded down (ns to ms is monotonic, so the smallest stays the smallest)
    return ns.length > 0 ? Math.max(1, Math.min(...ns.map((n) => Number(n / 1_000_000n)))) : undefined;
  }
}
