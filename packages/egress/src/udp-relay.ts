import type { Socket } from 'node:net';
import { deny, parseIp, type Principal } from '@trust/core';
import { recordEgress } from './audit.js';
import type { PeerVetting } from './sockets.js';
import { readSocksAddress } from './socks-address.js';
import { hostPort } from './target.js';
import { openEgressUdp, type EgressUdpSocket } from './udp-socket.js';

/**
 * The SOCKS5 UDP relay of one proxy listener (RFC 1928 UDP ASSOCIATE), fed by **datagram
 * channels** instead of a UDP socket on the host.
 *
 * A datagram channel is a stream connection to the listener whose first byte is `0x00` (never the
 * start of an HTTP request or of SOCKS5). After it, both directions carry frames:
 *
 *     u16 length (big-endian, of what follows) | u16 port | one SOCKS5 UDP datagram
 *
 * Towards the proxy, `port` is the UDP source port of the client (on the bridge's loopback) and
 * the datagram is `RSV RSV FRAG ATYP DST.ADDR DST.PORT DATA`; towards the bridge, `port` is where
 * the reply goes and the header names the peer that answered. The sandbox launcher's
 * `--udp-bridge` turns a loopback UDP port inside the sandbox into such a channel.
 *
 * Every datagram is judged: the first one to a destination within an association runs
 * `authorizeUdp` (absent = deny) and the address guard and records one `egress.udp` audit event
 * (`via: 'socks5-udp'`); later datagrams to that destination go through the same socket, which is
 * connected to the vetted IP (so DNS cannot move it), and a refused destination stays refused
 * for the association. Only datagrams from the peer come back.
 */
export interface UdpRelay {
  /** A UDP ASSOCIATE was accepted on `control`; `expectedPort` is the client's announced source port (0 = any). */
  associate(control: Socket, expectedPort: number): void;
  /** A connection that opened with `0x00`: read frames from it. */
  channel(socket: Socket, rest: Buffer): void;
  close(): Promise<void>;
}

/** Limits of one relay. */
export interface UdpRelayLimits {
  /** Open associations per listener (default 64); more ASSOCIATE requests are refused. */
  readonly maxAssociations: number;
  /** Destinations per association (default 256); datagrams to more are dropped. */
  readonly maxPeersPerAssociation: number;
  /** Datagrams waiting for a destination's verdict (default 16); more are dropped. */
  readonly maxPending: number;
}

const DEFAULT_RELAY_LIMITS: UdpRelayLimits = { maxAssociations: 64, maxPeersPerAssociation: 256, maxPending: 16 };

interface PeerState {
  socket?: EgressUdpSocket;
  denied: boolean;
  pending: Buffer[];
}

interface Association {
  readonly control: Socket;
  readonly expectedPort: number;
  srcPort?: number;
  channel?: Socket;
  readonly peers: Map<string, PeerState>;
  closed: boolean;
}

/** Parses a SOCKS5 UDP request header; `undefined` for a fragment or a malformed one. */
export function parseUdpDatagram(d: Buffer): { host: string; port: number; data: Buffer } | undefined {
  if (d.length < 4 || d[0] !== 0 || d[1] !== 0 || d[2] !== 0) return undefined;
  const addr = readSocksAddress(d, 3);
  if (typeof addr === 'string' || addr.host === '') return undefined;
  return { host: addr.host, port: addr.port, data: d.subarray(addr.end) };
}

/** A SOCKS5 UDP header naming `ip:port`, followed by `data`. */
export function udpDatagram(ip: string, port: number, data: Uint8Array): Buffer {
  const addr = parseIp(ip);
  const bytes = addr ? Buffer.from(addr.bytes) : Buffer.alloc(4);
  const head = Buffer.alloc(4 + bytes.length + 2);
  head[3] = addr?.family === 6 ? 0x04 : 0x01;
  bytes.copy(head, 4);
  head.writeUInt16BE(port, 4 + bytes.length);
  return Buffer.concat([head, data]);
}

/** One frame of a datagram channel. */
export function udpFrame(port: number, datagram: Uint8Array): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(datagram.length + 2, 0);
  head.writeUInt16BE(port, 2);
  return Buffer.concat([head, datagram]);
}

/**
 * Creates the UDP relay of one listener; `principal` is the listener's.
 *
 * @example
 * const relay = createUdpRelay({ policy, guard, audit, now: Date.now }, principal, (s) => sockets.add(s));
 */
export function createUdpRelay(
  vetting: PeerVetting,
  principal: Principal,
  limits: Partial<UdpRelayLimits> = {},
): UdpRelay {
  const lim = { ...DEFAULT_RELAY_LIMITS, ...limits };
  const associations = new Set<Association>();
  const bySrc = new Map<number, Association>();
  const channels = new Set<Socket>();
  const unknownSources = new Set<number>();

  const refuseUnassociated = (srcPort: number): void => {
    // Audited once per source port (bounded): a datagram without an open association goes nowhere.
    if (unknownSources.has(srcPort) || unknownSources.size >= 256) return;
    unknownSources.add(srcPort);
    const d = deny(
      'EGRESS_POLICY_DENIED',
      `egress denied: a UDP datagram from port ${srcPort} has no open SOCKS5 UDP association`,
      {
        rule: 'socks-udp',
        hint: 'send UDP ASSOCIATE on a SOCKS5 connection first and keep that connection open',
      },
    );
    recordEgress(
      vetting.audit,
      {
        principal,
        action: 'egress.udp',
        target: 'udp://(unassociated)',
        decision: d,
        started: vetting.now(),
        policy: vetting.policy.name,
        via: 'socks5-udp',
      },
      vetting.now,
    );
  };

  const endAssociation = (a: Association): void => {
    if (a.closed) return;
    a.closed = true;
    associations.delete(a);
    if (a.srcPort !== undefined && bySrc.get(a.srcPort) === a) bySrc.delete(a.srcPort);
    if (a.expectedPort !== 0 && bySrc.get(a.expectedPort) === a) bySrc.delete(a.expectedPort);
    for (const p of a.peers.values()) void p.socket?.close();
    a.peers.clear();
    a.control.destroy();
  };

  const pump = async (a: Association, sock: EgressUdpSocket): Promise<void> => {
    for (;;) {
      let data: Uint8Array;
      try {
        data = await sock.receive();
      } catch (e) {
        if ((e as { code?: string }).code === 'EGRESS_CONNECT_FAILED') continue;
        return;
      }
      if (a.closed || a.srcPort === undefined || !a.channel || a.channel.destroyed) continue;
      a.channel.write(udpFrame(a.srcPort, udpDatagram(sock.remote.ip, sock.remote.port, data)));
    }
  };

  const forward = (a: Association, host: string, port: number, data: Buffer): void => {
    const key = hostPort(host, port);
    const state = a.peers.get(key);
    if (state === undefined) {
      if (a.peers.size >= lim.maxPeersPerAssociation) return;
      const fresh: PeerState = { denied: false, pending: [data] };
      a.peers.set(key, fresh);
      openEgressUdp(vetting, host, port, { principal }, 'socks5-udp').then(
        (sock) => {
          if (a.closed) return void sock.close();
          fresh.socket = sock;
          for (const d of fresh.pending.splice(0)) sock.send(d).catch(() => undefined);
          void pump(a, sock);
        },
        () => {
          // Denied (already audited) or failed: this destination stays refused for the association.
          fresh.denied = true;
          fresh.pending.length = 0;
        },
      );
      return;
    }
    if (state.denied) return;
    if (state.socket) state.socket.send(data).catch(() => undefined);
    else if (state.pending.length < lim.maxPending) state.pending.push(data);
  };

  const onFrame = (channel: Socket, srcPort: number, datagram: Buffer): void => {
    let a = bySrc.get(srcPort);
    if (a === undefined) {
      // The oldest association that announced no source port takes this one.
      a = [...associations].find((x) => x.expectedPort === 0 && x.srcPort === undefined);
      if (a === undefined) {
        refuseUnassociated(srcPort);
        return;
      }
      a.srcPort = srcPort;
      bySrc.set(srcPort, a);
    }
    a.channel = channel;
    const parsed = parseUdpDatagram(datagram);
    if (parsed === undefined) return; // fragments and malformed headers are dropped (RFC 1928 allows it)
    forward(a, parsed.host, parsed.port, parsed.data);
  };

  return {
    associate(control, expectedPort) {
      if (associations.size >= lim.maxAssociations || (expectedPort !== 0 && bySrc.has(expectedPort))) {
        control.destroy();
        return;
      }
      const a: Association = { control, expectedPort, peers: new Map(), closed: false };
      associations.add(a);
      if (expectedPort !== 0) {
        a.srcPort = expectedPort;
        bySrc.set(expectedPort, a);
      }
      // The association lives as long as its control connection (RFC 1928 §7); bytes on it are ignored.
      control.on('data', () => undefined);
      control.on('close', () => endAssociation(a));
      control.on('error', () => control.destroy());
      control.resume();
    },
    channel(socket, rest) {
      channels.add(socket);
      let buf = rest;
      const drain = (): void => {
        while (buf.length >= 4) {
          const len = buf.readUInt16BE(0);
          if (len < 2) return void socket.destroy();
          if (buf.length < 2 + len) return;
          onFrame(socket, buf.readUInt16BE(2), buf.subarray(4, 2 + len));
          buf = buf.subarray(2 + len);
        }
      };
      socket.on('data', (chunk: Buffer) => {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        drain();
      });
      socket.on('close', () => channels.delete(socket));
      socket.on('error', () => socket.destroy());
      drain();
      socket.resume();
    },
    async close() {
      for (const a of [...associations]) endAssociation(a);
      for (const c of channels) c.destroy();
      channels.clear();
    },
  };
}
