import type { IpSocketAddress } from './socket-address.js';

/**
 * What TCP and UDP sockets of one instance share: the `network` resource and the socket base
 * class (family, broker id, peer, buffer sizes, hop limit and readiness).
 */
export function createSocketBase(ready: () => unknown) {
  class Network {
    noop(): void {}
  }

  class SocketBase {
    family: string;
    id = 0;
    remote: IpSocketAddress | undefined;
    receiveBuffer = 65536n;
    sendBuffer = 65536n;
    hops = 64;
    constructor(family: string) {
      this.family = family;
    }
    addressFamily() {
      return this.family;
    }
    receiveBufferSize() {
      return this.receiveBuffer;
    }
    setReceiveBufferSize(n: bigint): void {
      if (n === 0n) throw 'invalid-argument';
      this.receiveBuffer = n;
    }
    sendBufferSize() {
      return this.sendBuffer;
    }
    setSendBufferSize(n: bigint): void {
      if (n === 0n) throw 'invalid-argument';
      this.sendBuffer = n;
    }
    setHops(n: number): void {
      if (n === 0) throw 'invalid-argument';
      this.hops = n;
    }
    localAddress(): never {
      throw 'invalid-state';
    }
    remoteAddress(): IpSocketAddress {
      if (!this.remote) throw 'invalid-state';
      return this.remote;
    }
    subscribe() {
      return ready();
    }
  }

  return { Network, SocketBase };
}
