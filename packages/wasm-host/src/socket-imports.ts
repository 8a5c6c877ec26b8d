/* eslint-disable @typescript-eslint/no-explicit-any */
import { writeThroughStream } from './output-stream.js';
import type { BridgeTcpResult } from './net-protocol.js';

/**
 * Per-instance `wasi:sockets` whose TCP connections are opened by the host's egress broker
 * (policy + address guard on the peer, connection pinned). Bind and listen are refused
 * (`access-denied`): plugins only connect out. UDP datagrams are sent one by one through egress
 * (policy + guard per peer); inbound datagrams are not delivered. Name lookup is refused: guests
 * pass IP literals, and egress vets the address it dials.
 */
export interface SocketImportDeps {
  readonly InputStream: new () => any;
  readonly OutputStream: new () => any;
  readonly ready: () => unknown;
  readonly tcp: boolean;
  readonly udp: boolean;
  readonly call: (op: string, payload: unknown) => BridgeTcpResult;
}

type IpAddress = { tag: 'ipv4'; val: { port: number; address: number[] } } | { tag: 'ipv6'; val: { port: number; address: number[] } };

function formatAddress(a: IpAddress): { host: string; port: number } {
  if (a.tag === 'ipv4') return { host: a.val.address.join('.'), port: a.val.port };
  return { host: a.val.address.map((g) => g.toString(16)).join(':'), port: a.val.port };
}

export function createSocketImports(deps: SocketImportDeps): Record<string, Record<string, unknown>> {
  const { ready } = deps;
  const fail = (e: BridgeTcpResult & { kind: 'error' }): string =>
    e.error === 'denied' ? 'access-denied' : e.error === 'refused' ? 'connection-refused' : e.error === 'timeout' ? 'timeout' : 'unknown';

  class Network {
    noop(): void {}
  }
  const network = new Network();

  class TcpInput extends deps.InputStream {
    id: number;
    eof = false;
    constructor(id: number) {
      super();
      this.id = id;
    }
    pull(len: bigint, block: boolean): Uint8Array {
      if (this.eof) throw { tag: 'closed' };
      const r = deps.call('tcp.read', { id: this.id, max: Number(len), block });
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
      const r = deps.call('tcp.write', { id: this.id, data: new Uint8Array(buf) });
      if (r.kind === 'error') throw { tag: 'closed' };
    }
  }

  class TcpSocket {
    family: string;
    state: 'new' | 'connecting' | 'connected' | 'failed' = 'new';
    id = 0;
    error: string | undefined;
    remote: IpAddress | undefined;
    constructor(family: string) {
      this.family = family;
    }
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
    startConnect(_network: unknown, remote: IpAddress): void {
      if (this.state !== 'new') throw 'invalid-state';
      this.remote = remote;
      const { host, port } = formatAddress(remote);
      const r = deps.call('tcp.connect', { host, port });
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
    localAddress(): never {
      throw 'invalid-state';
    }
    remoteAddress(): IpAddress {
      if (!this.remote) throw 'invalid-state';
      return this.remote;
    }
    isListening() {
      return false;
    }
    addressFamily() {
      return this.family;
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
      return 64;
    }
    setHopLimit(): void {}
    receiveBufferSize() {
      return 65536n;
    }
    setReceiveBufferSize(): void {}
    sendBufferSize() {
      return 65536n;
    }
    setSendBufferSize(): void {}
    subscribe() {
      return ready();
    }
    shutdown(): void {
      if (this.id) deps.call('tcp.close', { id: this.id });
    }
  }

  class IncomingDatagramStream {
    receive(): unknown[] {
      return []; // inbound datagrams are not brokered: plugins only send
    }
    subscribe() {
      return ready();
    }
  }
  class OutgoingDatagramStream {
    remote: IpAddress | undefined;
    constructor(remote: IpAddress | undefined) {
      this.remote = remote;
    }
    checkSend(): bigint {
      return 64n;
    }
    send(datagrams: { data: Uint8Array; remoteAddress?: IpAddress }[]): bigint {
      let n = 0n;
      for (const d of datagrams) {
        const to = d.remoteAddress ?? this.remote;
        if (!to) throw 'invalid-argument';
        const { host, port } = formatAddress(to);
        const r = deps.call('udp.send', { host, port, data: new Uint8Array(d.data) });
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
  class UdpSocket {
    family: string;
    bound = false;
    constructor(family: string) {
      this.family = family;
    }
    // Binding is local setup only (no host socket is opened): every datagram is sent by egress.
    startBind(): void {
      if (this.bound) throw 'invalid-state';
    }
    finishBind(): void {
      this.bound = true;
    }
    stream(remote: IpAddress | undefined): [IncomingDatagramStream, OutgoingDatagramStream] {
      if (!this.bound) throw 'invalid-state';
      return [new IncomingDatagramStream(), new OutgoingDatagramStream(remote)];
    }
    localAddress(): never {
      throw 'invalid-state';
    }
    remoteAddress(): never {
      throw 'invalid-state';
    }
    addressFamily() {
      return this.family;
    }
    unicastHopLimit() {
      return 64;
    }
    setUnicastHopLimit(): void {}
    receiveBufferSize() {
      return 65536n;
    }
    setReceiveBufferSize(): void {}
    sendBufferSize() {
      return 65536n;
    }
    setSendBufferSize(): void {}
    subscribe() {
      return ready();
    }
  }
  class ResolveAddressStream {}

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
      resolveAddresses() {
        throw 'permanent-resolver-failure';
      },
    },
  };
}
