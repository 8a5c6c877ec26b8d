import type { BridgeTcpResult } from './net-protocol.js';
import { formatAddress, sameAddress, socketErrorCode } from './socket-address.js';
import type { IpSocketAddress, SocketDeps } from './socket-address.js';
import type { createSocketBase } from './socket-base.js';

/** How long one non-blocking `receive` waits for a first datagram (see `receive`). */
const RECEIVE_WAIT_MS = 50;
/** Datagrams one `receive` asks the broker for at most. */
const RECEIVE_BATCH = 16;

/**
 * `wasi:sockets/udp` for one instance: `stream(remote)` opens a socket connected to that one peer
 * through egress (one check per peer), whose datagrams the guest then sends and receives;
 * `stream(none)` sends each datagram through egress and receives nothing. Binding to a chosen
 * port is refused (`access-denied`).
 */
export function createUdpTypes(deps: SocketDeps, SocketBase: ReturnType<typeof createSocketBase>['SocketBase']) {
  const { ready } = deps;
  const tcpCall = deps.call;
  const fail = socketErrorCode;

  /** A datagram stream of one UDP socket: the broker's socket connected to `remote`, or 0 when unconnected. */
  class DatagramStream {
    id: number;
    remote: IpSocketAddress | undefined;
    constructor(id: number, remote: IpSocketAddress | undefined) {
      this.id = id;
      this.remote = remote;
    }
    subscribe() {
      return ready();
    }
  }

  /** Receives from the connected peer; an unconnected stream (id 0) receives nothing. */
  class IncomingDatagramStream extends DatagramStream {
    /**
     * Up to `max` queued datagrams from the connected peer. The guest's `subscribe()` is always
     * ready, so a guest that polls before receiving would spin: with nothing queued, the broker
     * waits up to RECEIVE_WAIT_MS for a first datagram before answering with none.
     */
    receive(max: bigint): { data: Uint8Array; remoteAddress: IpSocketAddress }[] {
      if (!this.id || !this.remote || max === 0n) return [];
      const r = tcpCall('udp.receive', {
        id: this.id,
        max: Math.min(Number(max), RECEIVE_BATCH),
        waitMs: RECEIVE_WAIT_MS,
      });
      if (r.kind === 'error') throw fail(r);
      const remote = this.remote;
      return (r.datagrams ?? []).map((data) => ({ data, remoteAddress: remote }));
    }
  }
  class OutgoingDatagramStream extends DatagramStream {
    checkSend(): bigint {
      return 64n;
    }
    send(datagrams: { data: Uint8Array; remoteAddress?: IpSocketAddress }[]): bigint {
      let n = 0n;
      for (const d of datagrams) {
        let r: BridgeTcpResult;
        if (this.id) {
          // connected: only the peer the socket was vetted for
          if (d.remoteAddress && !sameAddress(d.remoteAddress, this.remote!)) {
            if (n === 0n) throw 'invalid-argument';
            break;
          }
          r = tcpCall('udp.send-connected', { id: this.id, data: new Uint8Array(d.data) });
        } else {
          const to = d.remoteAddress ?? this.remote;
          if (!to) throw 'invalid-argument';
          r = tcpCall('udp.send', { ...formatAddress(to), data: new Uint8Array(d.data) });
        }
        if (r.kind === 'error') {
          if (n === 0n) throw fail(r);
          break;
        }
        n++;
      }
      return n;
    }
  }
  class UdpSocket extends SocketBase {
    bound = false;
    // Binding is local setup only (the host socket is opened by egress on an ephemeral port when
    // the guest connects a stream): a chosen port is refused, port 0 is accepted.
    startBind(_network: unknown, local: IpSocketAddress): void {
      if (this.bound) throw 'invalid-state';
      if (local?.val?.port) throw 'access-denied';
    }
    finishBind(): void {
      this.bound = true;
    }
    stream(remote: IpSocketAddress | undefined): [IncomingDatagramStream, OutgoingDatagramStream] {
      if (!this.bound) throw 'invalid-state';
      this.disconnect();
      if (remote) {
        const r = tcpCall('udp.open', formatAddress(remote));
        if (r.kind === 'error') throw fail(r);
        this.id = r.id ?? 0;
        this.remote = remote;
      }
      return [new IncomingDatagramStream(this.id, this.remote), new OutgoingDatagramStream(this.id, this.remote)];
    }
    disconnect(): void {
      if (this.id) tcpCall('udp.close', { id: this.id });
      this.id = 0;
      this.remote = undefined;
    }
    unicastHopLimit() {
      return this.hops;
    }
    setUnicastHopLimit(n: number): void {
      this.setHops(n);
    }
    [Symbol.dispose](): void {
      this.disconnect();
    }
  }

  return { UdpSocket, IncomingDatagramStream, OutgoingDatagramStream };
}
