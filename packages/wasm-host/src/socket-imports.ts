/* eslint-disable @typescript-eslint/no-explicit-any */
import { writeThroughStream } from './output-stream.js';
import type { BridgeLookupResult, BridgeTcpResult } from './net-protocol.js';

/**
 * Per-instance `wasi:sockets` backed by the host's egress broker:
 * - TCP connections are opened by egress (policy + address guard on the peer, pinned connect).
 * - UDP: `stream(remote)` opens a socket connected to that one peer through egress (one check
 *   per peer), whose datagrams the guest then sends and receives; `stream(none)` sends each
 *   datagram through egress and receives nothing.
 * - Name lookup resolves through the egress guard (its resolver and address floor) and never
 *   hands out a blocked address.
 * Bind to a chosen port and listen are refused (`access-denied`): plugins only reach out.
 */
export interface SocketImportDeps {
  readonly InputStream: new () => any;
  readonly OutputStream: new () => any;
  readonly ready: () => unknown;
  readonly tcp: boolean;
  readonly udp: boolean;
  readonly call: (op: string, payload: unknown) => BridgeTcpResult | BridgeLookupResult;
}

export type IpSocketAddress = { tag: 'ipv4'; val: { port: number; address: number[] } } | { tag: 'ipv6'; val: { port: number; address: number[]; flowInfo?: number; scopeId?: number } };

/** The host text and port of a guest socket address. */
export function formatAddress(a: IpSocketAddress): { host: string; port: number } {
  if (a.tag === 'ipv4') return { host: a.val.address.join('.'), port: a.val.port };
  return { host: a.val.address.map((g) => g.toString(16)).join(':'), port: a.val.port };
}

/** How long one non-blocking `receive` waits for a first datagram (see `receive`). */
const RECEIVE_WAIT_MS = 50;
/** Datagrams one `receive` asks the broker for at most. */
const RECEIVE_BATCH = 16;

export function createSocketImports(deps: SocketImportDeps): Record<string, Record<string, unknown>> {
  const { ready } = deps;
  const tcpCall = (op: string, payload: unknown) => deps.call(op, payload) as BridgeTcpResult;
  const fail = (e: { error: string }): string =>
    e.error === 'denied' ? 'access-denied' : e.error === 'refused' ? 'connection-refused' : e.error === 'timeout' ? 'timeout' : e.error === 'too-large' ? 'datagram-too-large' : 'unknown';

  class Network {
    noop(): void {}
  }
  const network = new Network();

  /** What TCP and UDP sockets share: family, broker id, peer, buffer sizes, hop limit and readiness. */
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
        this.error = fail(r);
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

  class IncomingDatagramStream {
    /** The broker's socket connected to `remote`, or 0 for an unconnected stream (receives nothing). */
    id: number;
    remote: IpSocketAddress | undefined;
    constructor(id: number, remote: IpSocketAddress | undefined) {
      this.id = id;
      this.remote = remote;
    }
    /**
     * Up to `max` queued datagrams from the connected peer. The guest's `subscribe()` is always
     * ready, so a guest that polls before receiving would spin: with nothing queued, the broker
     * waits up to RECEIVE_WAIT_MS for a first datagram before answering with none.
     */
    receive(max: bigint): { data: Uint8Array; remoteAddress: IpSocketAddress }[] {
      if (!this.id || !this.remote || max === 0n) return [];
      const r = tcpCall('udp.receive', { id: this.id, max: Math.min(Number(max), RECEIVE_BATCH), waitMs: RECEIVE_WAIT_MS });
      if (r.kind === 'error') throw fail(r);
      const remote = this.remote;
      return (r.datagrams ?? []).map((data) => ({ data, remoteAddress: remote }));
    }
    subscribe() {
      return ready();
    }
  }
  class OutgoingDatagramStream {
    id: number;
    remote: IpSocketAddress | undefined;
    constructor(id: number, remote: IpSocketAddress | undefined) {
      this.id = id;
      this.remote = remote;
    }
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
    subscribe() {
      return ready();
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

  /** Addresses the egress guard let through for one name, handed out one at a time. */
  class ResolveAddressStream {
    addresses: { tag: 'ipv4' | 'ipv6'; val: number[] }[];
    error: string | undefined;
    constructor(addresses: { tag: 'ipv4' | 'ipv6'; val: number[] }[], error: string | undefined) {
      this.addresses = addresses;
      this.error = error;
    }
    resolveNextAddress(): { tag: 'ipv4' | 'ipv6'; val: number[] } | undefined {
      if (this.error) {
        const e = this.error;
        this.error = undefined;
        throw e;
      }
      return this.addresses.shift();
    }
    subscribe() {
      return ready();
    }
  }

  return {
    'wasi:sockets/network': { Network },
    'wasi:sockets/instance-network': { instanceNetwork: () => network },
    'wasi:sockets/tcp': { TcpSocket },
    'wasi:sockets/tcp-create-socket': {
      createTcpSocket(family: string) {
        if (!deps.tcp) throw 'access-denied';
        return new TcpSocket(family);
      },
    },
    'wasi:sockets/udp': { UdpSocket, IncomingDatagramStream, OutgoingDatagramStream },
    'wasi:sockets/udp-create-socket': {
      createUdpSocket(family: string) {
        if (!deps.udp) throw 'access-denied';
        return new UdpSocket(family);
      },
    },
    'wasi:sockets/ip-name-lookup': {
      ResolveAddressStream,
      resolveAddresses(_network: unknown, name: string) {
        if (!deps.tcp && !deps.udp) throw 'access-denied';
        if (typeof name !== 'string' || name.length === 0 || name.length > 253) throw 'invalid-argument';
        const r = deps.call('dns.lookup', { name }) as BridgeLookupResult;
        if (r.kind === 'error') return new ResolveAddressStream([], r.error);
        const addresses = r.addresses.map((a) => ({ tag: a.tag, val: [...a.val] }));
        return new ResolveAddressStream(addresses, addresses.length === 0 ? 'name-unresolvable' : undefined);
      },
    },
  };
}

function sameAddress(a: IpSocketAddress, b: IpSocketAddress): boolean {
  return a.tag === b.tag && a.val.port === b.val.port && a.val.address.length === b.val.address.length && a.val.address.every((x, i) => x === b.val.address[i]);
}
