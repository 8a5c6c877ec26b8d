import { createSocket, type Socket as DgramSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { TrustError, deny } from '@trust/core';
import { toEgressError } from './errors.js';
import { vetPeer, type PeerVetting, type SocketCallContext } from './sockets.js';
import { hostPort } from './target.js';

/** The largest UDP payload over IPv4 (65 535 − 8 UDP − 20 IP header bytes). */
export const MAX_UDP_DATAGRAM = 65_507;

/** Options of `client.openUdp`. */
export interface UdpOpenOptions extends SocketCallContext {
  /**
   * Largest datagram sent or kept, in bytes (default and maximum 65 507). Sending a larger one
   * throws `EGRESS_DATAGRAM_TOO_LARGE`; a larger received one is dropped and counted.
   */
  readonly maxDatagramBytes?: number;
  /** Received datagrams buffered before `receive` takes them (default 64); more are dropped and counted. */
  readonly maxQueued?: number;
}

/** Options of one `receive`. */
export interface UdpReceiveOptions {
  /** Aborting rejects the pending receive with `EGRESS_ABORTED` (the socket stays open). */
  readonly signal?: AbortSignal;
  /** Bytes returned at most; a longer datagram is cut to this length, like recv(2). */
  readonly maxBytes?: number;
}

/**
 * A UDP socket connected to one vetted peer: the kernel delivers only datagrams from that
 * address and port, and every send goes there. It never binds to a chosen port and never
 * listens; the local port is an ephemeral one picked by the kernel.
 */
export interface EgressUdpSocket {
  /** The peer: the host as asked (canonical), the vetted IP actually dialled, and the port. */
  readonly remote: { readonly host: string; readonly ip: string; readonly port: number };
  /** The ephemeral local address the kernel picked (informational). */
  readonly local: { readonly address: string; readonly port: number };
  /** Sends one datagram to the peer. */
  send(data: Uint8Array | string): Promise<void>;
  /**
   * The next datagram from the peer (oldest first). Rejects with `EGRESS_ABORTED` when the
   * signal fires or the socket is closed, and with `EGRESS_CONNECT_FAILED` once after the
   * kernel reported an ICMP error (e.g. port unreachable); the socket stays usable.
   */
  receive(options?: UdpReceiveOptions): Promise<Uint8Array>;
  /** Datagrams dropped because the queue was full or they exceeded `maxDatagramBytes`. */
  dropped(): number;
  /** Closes the socket; pending receives reject with `EGRESS_ABORTED`. Idempotent. */
  close(): Promise<void>;
}

const aborted = (where: string, why: string): TrustError =>
  new TrustError('EGRESS_ABORTED', `egress to ${where}: ${why}`, {
    hint: 'open a new socket to continue',
    decision: deny('EGRESS_ABORTED', `egress to ${where}: ${why}`, { rule: 'limits' }),
  });

function tooLarge(where: string, size: number, max: number): TrustError {
  const reason = `egress to ${where}: a ${size}-byte datagram exceeds the ${max}-byte limit`;
  const hint =
    max < MAX_UDP_DATAGRAM
      ? 'raise maxDatagramBytes when opening the socket, or send smaller datagrams'
      : 'split the data into smaller datagrams';
  return new TrustError('EGRESS_DATAGRAM_TOO_LARGE', `${reason}; ${hint}`, {
    hint,
    decision: deny('EGRESS_DATAGRAM_TOO_LARGE', reason, { rule: 'limits', hint }),
  });
}

/**
 * Opens a UDP socket to a vetted peer: `authorizeUdp` (absent = deny), the guard on every
 * resolved address, then a `node:dgram` socket **connected** to the first vetted IP. One audit
 * event (`egress.udp`) records the decision and the dialled address; datagrams on the open
 * socket do not repeat it (the peer cannot change: the socket is connected to that IP).
 *
 * @example
 * const udp = await openEgressUdp(engine, 'dns.example.com', 53, { principal });
 * await udp.send(query);
 * const answer = await udp.receive({ signal: AbortSignal.timeout(2000), maxBytes: 4096 });
 * await udp.close();
 */
export async function openEgressUdp(
  engine: PeerVetting,
  host: string,
  port: number,
  options: UdpOpenOptions,
  via?: string,
): Promise<EgressUdpSocket> {
  const maxDatagram = options.maxDatagramBytes ?? MAX_UDP_DATAGRAM;
  const maxQueued = options.maxQueued ?? 64;
  if (!Number.isInteger(maxDatagram) || maxDatagram < 1 || maxDatagram > MAX_UDP_DATAGRAM)
    throw new RangeError(`maxDatagramBytes must be an integer 1-${MAX_UDP_DATAGRAM}`);
  if (!Number.isInteger(maxQueued) || maxQueued < 1) throw new RangeError('maxQueued must be a positive integer');
  const signal = options.signal;
  const where = hostPort(host, port);
  if (signal?.aborted) throw aborted(where, 'aborted before the socket was opened');
  const { parsed, decision, verdict, audit } = await vetPeer(engine, 'udp', host, port, options, via);
  const ip = verdict.addresses[0] as string;
  const peerText = hostPort(parsed.host, parsed.port);
  const socket: DgramSocket = createSocket({ type: isIPv6(ip) ? 'udp6' : 'udp4' });
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(aborted(peerText, 'aborted while connecting'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      socket.once('error', reject);
      socket.connect(parsed.port, ip, () => {
        signal?.removeEventListener('abort', onAbort);
        socket.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    socket.close();
    const err = toEgressError(e, { where: peerText, userSignal: signal });
    audit(decision, { addresses: verdict.addresses, failure: err.code });
    throw err;
  }
  audit(decision, { addresses: verdict.addresses, dialled: ip });

  const queue: Buffer[] = [];
  const waiters: { resolve: (b: Buffer) => void; reject: (e: Error) => void }[] = [];
  let dropped = 0;
  let failure: TrustError | undefined;
  let closed = false;
  socket.on('message', (msg, rinfo) => {
    // The connected socket already filters by peer; this is a second, cheap check.
    if (rinfo.port !== parsed.port || rinfo.size > maxDatagram) {
      dropped++;
      return;
    }
    const w = waiters.shift();
    if (w) w.resolve(msg);
    else if (queue.length < maxQueued) queue.push(msg);
    else dropped++;
  });
  // An ICMP error (port unreachable, …) is reported once, like SO_ERROR: to the pending
  // receives, or else to the next one. The socket stays usable.
  socket.on('error', (e) => {
    const err = toEgressError(e, { where: peerText });
    const pending = waiters.splice(0);
    if (pending.length === 0) failure = err;
    for (const w of pending) w.reject(err);
  });
  const closeNow = (): void => {
    if (closed) return;
    closed = true;
    const err = aborted(peerText, 'the socket was closed');
    for (const w of waiters.splice(0)) w.reject(err);
    queue.length = 0;
    socket.close();
  };

  return Object.freeze({
    remote: Object.freeze({ host: parsed.host, ip, port: parsed.port }),
    local: Object.freeze({ address: socket.address().address, port: socket.address().port }),
    async send(data: Uint8Array | string): Promise<void> {
      if (closed) throw aborted(peerText, 'the socket was closed');
      const buf = typeof data === 'string' ? Buffer.from(data) : data;
      if (buf.byteLength > maxDatagram) throw tooLarge(peerText, buf.byteLength, maxDatagram);
      await new Promise<void>((resolve, reject) => {
        socket.send(buf, (err) => (err ? reject(toEgressError(err, { where: peerText })) : resolve()));
      });
    },
    receive(opts: UdpReceiveOptions = {}): Promise<Uint8Array> {
      const cut = (b: Buffer): Uint8Array =>
        opts.maxBytes !== undefined && b.length > opts.maxBytes ? b.subarray(0, Math.max(0, opts.maxBytes)) : b;
      const next = queue.shift();
      if (next) return Promise.resolve(cut(next));
      if (closed) return Promise.reject(aborted(peerText, 'the socket was closed'));
      if (failure) {
        const err = failure;
        failure = undefined;
        return Promise.reject(err);
      }
      if (opts.signal?.aborted) return Promise.reject(aborted(peerText, 'the receive was aborted'));
      return new Promise<Uint8Array>((resolve, reject) => {
        const onAbort = (): void => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          reject(aborted(peerText, 'the receive was aborted'));
        };
        const waiter = {
          resolve: (b: Buffer) => {
            opts.signal?.removeEventListener('abort', onAbort);
            resolve(cut(b));
          },
          reject: (e: Error) => {
            opts.signal?.removeEventListener('abort', onAbort);
            reject(e);
          },
        };
        waiters.push(waiter);
        opts.signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    dropped: () => dropped,
    close: async () => closeNow(),
  });
}
