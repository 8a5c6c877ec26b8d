import type { BridgeTcpResult } from './net-protocol.js';

/** A `wasi:sockets` `ip-socket-address`. */
export type IpSocketAddress =
  | { tag: 'ipv4'; val: { port: number; address: number[] } }
  | { tag: 'ipv6'; val: { port: number; address: number[]; flowInfo?: number; scopeId?: number } };

/** The host text and port of a guest socket address. */
export function formatAddress(a: IpSocketAddress): { host: string; port: number } {
  if (a.tag === 'ipv4') return { host: a.val.address.join('.'), port: a.val.port };
  return { host: a.val.address.map((g) => g.toString(16)).join(':'), port: a.val.port };
}

/** Whether two socket addresses are the same family, address and port. */
export function sameAddress(a: IpSocketAddress, b: IpSocketAddress): boolean {
  return (
    a.tag === b.tag &&
    a.val.port === b.val.port &&
    a.val.address.length === b.val.address.length &&
    a.val.address.every((x, i) => x === b.val.address[i])
  );
}

/** The `wasi:sockets` `error-code` for a broker error. */
export function socketErrorCode(e: { error: string }): string {
  return e.error === 'denied'
    ? 'access-denied'
    : e.error === 'refused'
      ? 'connection-refused'
      : e.error === 'timeout'
        ? 'timeout'
        : e.error === 'too-large'
          ? 'datagram-too-large'
          : 'unknown';
}

/** What the socket resources need of the instance. */
export interface SocketDeps {
  /** An always-ready pollable. */
  readonly ready: () => unknown;
  /** A synchronous call to the broker. */
  readonly call: (op: string, payload: unknown) => BridgeTcpResult;
}
