import type { BridgeLookupResult, BridgeTcpResult } from './net-protocol.js';
import { createSocketBase } from './socket-base.js';
import { createTcpTypes } from './socket-tcp.js';
import { createUdpTypes } from './socket-udp.js';
import { createNameLookup } from './socket-lookup.js';

export { formatAddress } from './socket-address.js';
export type { IpSocketAddress } from './socket-address.js';

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
  /** The shim's stream classes, which a TCP connection's streams extend. */
  readonly InputStream: new () => object;
  readonly OutputStream: new () => object;
  readonly ready: () => unknown;
  readonly tcp: boolean;
  readonly udp: boolean;
  readonly call: (op: string, payload: unknown) => BridgeTcpResult | BridgeLookupResult;
}

/** Builds the `wasi:sockets/*` imports of one instance. */
export function createSocketImports(deps: SocketImportDeps): Record<string, Record<string, unknown>> {
  const { ready } = deps;
  const tcpCall = (op: string, payload: unknown) => deps.call(op, payload) as BridgeTcpResult;
  const { Network, SocketBase } = createSocketBase(ready);
  const network = new Network();
  const { TcpSocket } = createTcpTypes(
    { InputStream: deps.InputStream, OutputStream: deps.OutputStream, ready, call: tcpCall },
    SocketBase,
  );
  const { UdpSocket, IncomingDatagramStream, OutgoingDatagramStream } = createUdpTypes(
    { ready, call: tcpCall },
    SocketBase,
  );
  const lookup = createNameLookup(
    ready,
    deps.tcp || deps.udp,
    (op, payload) => deps.call(op, payload) as BridgeLookupResult,
  );

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
    'wasi:sockets/ip-name-lookup': lookup,
  };
}
