import type { Socket } from 'node:net';
import type { EgressClient, EgressUdpSocket } from '@trust/egress';
import { formatIp, parseIp, type AuditSink, type EgressPeer, type EgressPolicy, type Principal } from '@trust/core';
import type { BridgeLookupResult, BridgeTcpResult, GuestIpAddress } from './net-protocol.js';

type SocketError = Extract<BridgeTcpResult, { kind: 'error' }>['error'];

/** Maps an egress error to the bridge's socket error. */
export function classifySocketError(e: unknown): { error: SocketError; message: string } {
  const code = String((e as { code?: unknown })?.code ?? '');
  const message = String((e as Error)?.message ?? e);
  if (code === 'EGRESS_TIMEOUT' || code === 'EGRESS_ABORTED' || code === 'EGRESS_DNS_TIMEOUT')
    return { error: 'timeout', message };
  if (code === 'EGRESS_DATAGRAM_TOO_LARGE') return { error: 'too-large', message };
  if (code === 'EGRESS_CONNECT_FAILED') return { error: 'refused', message };
  if (code.startsWith('EGRESS_') || /DENIED/.test(code)) return { error: 'denied', message };
  return { error: 'other', message };
}

/** An address text (as the guard formats it) as the guest's `ip-address` variant, or `undefined` if it is not an IP. */
export function toGuestIp(text: string): GuestIpAddress | undefined {
  const ip = parseIp(text);
  if (!ip) return undefined;
  if (ip.family === 4) return { tag: 'ipv4', val: [...ip.bytes] };
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip.bytes[i]! << 8) | ip.bytes[i + 1]!);
  return { tag: 'ipv6', val: groups };
}

/**
 * Names this plugin looked up, by the address the guard handed out: when the guest then dials
 * that address, the policy is asked about the name (with the address as `ip`), so a
 * name-based TCP/UDP policy works for guests that resolve first. The guard still judges the
 * address itself at connect time. Entries expire; the map is bounded.
 */
export interface LookupNames {
  remember(name: string, addresses: readonly string[]): void;
  /** The peer as the policy should see it. */
  peerFor(peer: EgressPeer): EgressPeer;
}

export function createLookupNames(ttlMs = 60_000, max = 1024, now: () => number = Date.now): LookupNames {
  const byIp = new Map<string, { name: string; expires: number }>();
  return {
    remember(name, addresses) {
      for (const a of addresses) {
        if (byIp.size >= max) byIp.delete(byIp.keys().next().value as string);
        byIp.delete(a);
        byIp.set(a, { name, expires: now() + ttlMs });
      }
    },
    peerFor(peer) {
      const ip = parseIp(peer.host);
      const hit = ip ? byIp.get(formatIp(ip)) : undefined;
      if (!hit || hit.expires <= now()) return peer;
      return { host: hit.name, port: peer.port, ip: formatIp(ip!) };
    },
  };
}

/** Wraps a policy so TCP/UDP peers that came from a lookup are judged by name (see `LookupNames`). */
export function withLookupNames(policy: EgressPolicy, names: LookupNames): EgressPolicy {
  const tcp = policy.authorizeTcp;
  const udp = policy.authorizeUdp;
  const wrapped: EgressPolicy = {
    ...policy,
    authorizeHttp: (r, c) => policy.authorizeHttp(r, c),
    authorizeTcp: tcp
      ? (p: EgressPeer, c: Parameters<typeof tcp>[1]) => tcp.call(policy, names.peerFor(p), c)
      : undefined,
    authorizeUdp: udp
      ? (p: EgressPeer, c: Parameters<typeof udp>[1]) => udp.call(policy, names.peerFor(p), c)
      : undefined,
  };
  return Object.freeze(wrapped);
}

/**
 * The main-thread side of a plugin's sockets and name lookups: TCP connections and UDP sockets
 * opened by the plugin's egress client, and names resolved by that client's guard (its resolver
 * and address floor), each lookup audited as `egress.dns`.
 */
export function createSocketBroker(o: {
  client: EgressClient;
  principal: Principal;
  audit?: AuditSink;
  names: LookupNames;
}) {
  const { client, principal } = o;
  const sockets = new Map<
    number,
    { socket: Socket; chunks: Buffer[]; ended: boolean; wake: (() => void) | undefined }
  >();
  const udps = new Map<number, EgressUdpSocket>();
  let nextId = 1;

  async function lookup(name: string): Promise<BridgeLookupResult> {
    const verdict = await client.guard.resolveHost(name, 0);
    const target = `dns://${name}`;
    if (!verdict.allow) {
      o.audit?.record({
        principal,
        action: 'egress.dns',
        target,
        decision: 'deny',
        code: verdict.code,
        ...(verdict.rule ? { rule: verdict.rule } : {}),
        details: { addresses: verdict.addresses },
      });
      const error =
        verdict.code === 'EGRESS_DNS_TIMEOUT'
          ? 'temporary-resolver-failure'
          : verdict.code === 'EGRESS_DNS_EMPTY'
            ? 'name-unresolvable'
            : verdict.code === 'EGRESS_DNS_FAILED'
              ? 'name-unresolvable'
              : 'access-denied';
      return { kind: 'error', error, message: verdict.reason };
    }
    o.audit?.record({
      principal,
      action: 'egress.dns',
      target,
      decision: 'allow',
      rule: verdict.rule,
      details: { addresses: verdict.addresses },
    });
    o.names.remember(name, verdict.addresses);
    return {
      kind: 'ok',
      addresses: verdict.addresses.map(toGuestIp).filter((a): a is GuestIpAddress => a !== undefined),
    };
  }

  async function handle(
    op: string,
    p: {
      id?: number;
      host?: string;
      port?: number;
      max?: number;
      block?: boolean;
      data?: Uint8Array;
      waitMs?: number;
      name?: string;
    },
  ): Promise<BridgeTcpResult | BridgeLookupResult> {
    const failed = (e: unknown): BridgeTcpResult => ({ kind: 'error', ...classifySocketError(e) });
    if (op === 'dns.lookup') return lookup(String(p.name));
    if (op === 'udp.send') {
      try {
        await client.sendUdp(p.host!, p.port!, p.data ?? new Uint8Array(0), { principal });
        return { kind: 'ok' };
      } catch (e) {
        return failed(e);
      }
    }
    if (op === 'udp.open') {
      try {
        const socket = await client.openUdp(p.host!, p.port!, { principal });
        const id = nextId++;
        udps.set(id, socket);
        return { kind: 'ok', id };
      } catch (e) {
        return failed(e);
      }
    }
    if (op.startsWith('udp.')) {
      const udp = udps.get(p.id ?? -1);
      if (!udp) return { kind: 'error', error: 'closed', message: 'no such socket' };
      try {
        if (op === 'udp.send-connected') {
          await udp.send(p.data ?? new Uint8Array(0));
          return { kind: 'ok' };
        }
        if (op === 'udp.receive') return { kind: 'ok', datagrams: await receiveSome(udp, p.max ?? 1, p.waitMs ?? 0) };
        if (op === 'udp.close') {
          udps.delete(p.id!);
          await udp.close();
          return { kind: 'ok' };
        }
      } catch (e) {
        return failed(e);
      }
    }
    if (op === 'tcp.connect') {
      try {
        const socket = await client.connectTcp(p.host!, p.port!, { principal });
        const id = nextId++;
        const entry = { socket, chunks: [] as Buffer[], ended: false, wake: undefined as (() => void) | undefined };
        socket.on('data', (c: Buffer) => {
          entry.chunks.push(c);
          entry.wake?.();
        });
        const end = () => {
          entry.ended = true;
          entry.wake?.();
        };
        socket.on('end', end);
        socket.on('close', end);
        socket.on('error', end);
        sockets.set(id, entry);
        return { kind: 'ok', id };
      } catch (e) {
        return failed(e);
      }
    }
    const entry = sockets.get(p.id ?? -1);
    if (!entry) return { kind: 'error', error: 'closed', message: 'no such connection' };
    if (op === 'tcp.write') {
      await new Promise<void>((resolve, reject) =>
        entry.socket.write(Buffer.from(p.data ?? new Uint8Array(0)), (e) => (e ? reject(e) : resolve())),
      );
      return { kind: 'ok' };
    }
    if (op === 'tcp.read') {
      if (entry.chunks.length === 0 && !entry.ended && p.block)
        await new Promise<void>((resolve) => (entry.wake = resolve));
      entry.wake = undefined;
      if (entry.chunks.length === 0)
        return entry.ended ? { kind: 'ok', closed: true } : { kind: 'ok', data: new Uint8Array(0) };
      const all = Buffer.concat(entry.chunks);
      const take = all.subarray(0, Math.max(1, p.max ?? all.length));
      entry.chunks = take.length < all.length ? [all.subarray(take.length)] : [];
      return { kind: 'ok', data: new Uint8Array(take) };
    }
    if (op === 'tcp.close') {
      entry.socket.destroy();
      sockets.delete(p.id!);
      return { kind: 'ok' };
    }
    return { kind: 'error', error: 'other', message: `unknown op ${op}` };
  }

  return {
    handle,
    close() {
      for (const s of sockets.values()) s.socket.destroy();
      sockets.clear();
      for (const u of udps.values()) void u.close().catch(() => undefined);
      udps.clear();
    },
  };
}

/**
 * Up to `max` datagrams: waits up to `waitMs` for the first one, then takes only what is
 * already queued (a receive with an aborted signal answers from the queue or not at all).
 */
async function receiveSome(udp: EgressUdpSocket, max: number, waitMs: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const first = await receiveOrNothing(udp, AbortSignal.timeout(Math.max(1, waitMs)));
  if (!first) return out;
  out.push(first);
  const now = AbortSignal.abort();
  while (out.length < max) {
    const next = await receiveOrNothing(udp, now);
    if (!next) break;
    out.push(next);
  }
  return out;
}

async function receiveOrNothing(udp: EgressUdpSocket, signal: AbortSignal): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await udp.receive({ signal }));
  } catch (e) {
    if (signal.aborted && (e as { code?: string }).code === 'EGRESS_ABORTED') return undefined;
    throw e;
  }
}
