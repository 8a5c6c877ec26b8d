import { writeThroughStream } from './output-stream.js';
import { formatAddress, socketErrorCode } from './socket-address.js';
import type { IpSocketAddress, SocketDeps } from './socket-address.js';
import type { createSocketBase } from './socket-base.js';

/** What TCP sockets need of the instance. */
export interface TcpDeps extends SocketDeps {
  /** The shim's stream classes, which the connection's streams extend. */
  readonly InputStream: new () => object;
  readonly OutputStream: new () => object;
}

/**
 * `wasi:sockets/tcp` for one instance: client sockets whose connections egress opens (policy and
 * address guard on the peer, pinned connect), with their input and output streams. Bind and
 * listen are refused (`access-denied`): plugins only reach out.
 */
export function createTcpTypes(deps: TcpDeps, SocketBase: ReturnType<typeof createSocketBase>['SocketBase']) {
  const { ready } = deps;
  const tcpCall = deps.call;

  class TcpInput extends deps.InputStream {
    id: number;
    eof = false;
    constructor(id: number) {
      super();
      this.id = id;
    }
    pull(len: bigint, block: boolean): Uint8Array {
      if (this.eof) throw { tag: 'closed' };
      const r = tcpCall('tcp.read', { id: this.id, max: Number(len), block });
      if (r.kind === 'error') throw { tag: 'closed' };
      if (r.closed) {
        this.eof = true;
        throw { tag: 'closed' };
      }
      return r.data ?? new Uint8Array(0);
    }
    read(len: bigint): Uint8Array {
      return this.pull(len, false);
    }
    blockingRead(len: bigint): Uint8Array {
      return this.pull(len, true);
    }
    skip(len: bigint): bigint {
      return BigInt(this.read(len).length);
    }
    blockingSkip(len: bigint): bigint {
      return BigInt(this.blockingRead(len).length);
    }
    subscribe() {
      return ready();
    }
  }

  class TcpOutput extends writeThroughStream(deps.OutputStream, ready) {
    id: number;
    constructor(id: number) {
      super();
      this.id = id;
    }
    checkWrite(): bigint {
      return 65536n;
    }
    override write(buf: Uint8Array): void {
      const r = tcpCall('tcp.write', { id: this.id, data: new Uint8Array(buf) });
      if (r.kind === 'error') throw { tag: 'closed' };
    }
  }

  class TcpSocket extends SocketBase {
    state: 'new' | 'connecting' | 'connected' | 'failed' = 'new';
    error: string | undefined;
    startBind(): never {
      throw 'access-denied';
    }
    finishBind(): never {
      throw 'not-in-progress';
    }
    startListen(): never {
      throw 'access-denied';
    }
    finishListen(): never {
      throw 'not-in-progress';
    }
    accept(): never {
      throw 'invalid-state';
    }
    startConnect(_network: unknown, remote: IpSocketAddress): void {
      if (this.state !== 'new') throw 'invalid-state';
      this.remote = remote;
      const r = tcpCall('tcp.connect', formatAddress(remote));
      if (r.kind === 'error') {
        this.state = 'failed';
        this.error = socketErrorCode(r);
      } else {
        this.state = 'connecting';
        this.id = r.id ?? 0;
      }
    }
    finishConnect(): [TcpInput, TcpOutput] {
      if (this.state === 'failed') {
        this.state = 'new';
        throw this.error;
      }
      if (this.state !== 'connecting') throw 'not-in-progress';
      this.state = 'connected';
      return [new TcpInput(this.id), new TcpOutput(this.id)];
    }
    isListening() {
      return false;
    }
    setListenBacklogSize(): void {}
    keepAliveEnabled() {
      return false;
    }
    setKeepAliveEnabled(): void {}
    keepAliveIdleTime() {
      return 7_200_000_000_000n;
    }
    setKeepAliveIdleTime(): void {}
    keepAliveInterval() {
      return 75_000_000_000n;
    }
    setKeepAliveInterval(): void {}
    keepAliveCount() {
      return 9;
    }
    setKeepAliveCount(): void {}
    hopLimit() {
      return this.hops;
    }
    setHopLimit(n: number): void {
      this.setHops(n);
    }
    shutdown(): void {
      if (this.id) tcpCall('tcp.close', { id: this.id });
    }
    [Symbol.dispose](): void {
      if (this.id) tcpCall('tcp.close', { id: this.id });
      this.id = 0;
    }
  }

  return { TcpSocket };
}
