import { formatIp, parseIp, type IpAddress } from '@trust/core';

/**
 * The class of an address, judged on its bytes. For IPv6 forms that embed an IPv4 address
 * (mapped, SIIT, IPv4-compatible, NAT64, 6to4, Teredo) the class is the embedded address's class.
 */
export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'unspecified'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'ula';

/** How an IPv4 address was embedded in an IPv6 one. */
export type EmbeddingKind = 'ipv4-mapped' | 'siit' | 'ipv4-compatible' | 'nat64' | '6to4' | 'teredo';

export interface AddressClass {
  readonly kind: AddressKind;
  /** Canonical text of the address that was classified (RFC 5952 for IPv6). */
  readonly ip: string;
  /** What the kind means, for messages: e.g. `a private (RFC 1918) address`. */
  readonly label: string;
  /** Set when the kind comes from an embedded IPv4 address. */
  readonly via?: EmbeddingKind;
  /** The embedded IPv4 address that was judged. */
  readonly embedded?: string;
}

const LABELS: Readonly<Record<AddressKind, string>> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private (RFC 1918) address',
  cgnat: 'a carrier-grade NAT (100.64.0.0/10) address',
  unspecified: 'an unspecified address (it reaches the local host)',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved or documentation address',
  ula: 'an IPv6 unique-local (fc00::/7) address',
};

function v4Kind(b: Uint8Array): AddressKind {
  const [a = 0, c = 0, d = 0, e = 0] = b;
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 10) return 'private';
  if (a === 172 && c >= 16 && c <= 31) return 'private';
  if (a === 192 && c === 168) return 'private';
  if (a === 169 && c === 254) return d === 169 && e === 254 ? 'metadata' : 'link-local';
  if (a === 100 && c === 100 && d === 100 && e === 200) return 'metadata';
  if (a === 100 && c >= 64 && c <= 127) return 'cgnat';
  if (a === 255 && c === 255 && d === 255 && e === 255) return 'broadcast';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a >= 240) return 'reserved';
  if (a === 192 && c === 0 && (d === 0 || d === 2)) return 'reserved'; // IETF assignments, TEST-NET-1
  if (a === 192 && c === 88 && d === 99) return 'reserved'; // 6to4 relay anycast (deprecated)
  if (a === 198 && (c === 18 || c === 19)) return 'reserved'; // benchmarking
  if (a === 198 && c === 51 && d === 100) return 'reserved'; // TEST-NET-2
  if (a === 203 && c === 0 && d === 113) return 'reserved'; // TEST-NET-3
  return 'public';
}

function allZero(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}

function v4At(b: Uint8Array, at: number, invert = false): Uint8Array {
  const out = b.slice(at, at + 4);
  if (invert) for (let i = 0; i < 4; i++) out[i] = ~(out[i] as number) & 0xff;
  return out;
}

function embedded(via: EmbeddingKind, v4: Uint8Array, ip: string): AddressClass {
  let kind = v4Kind(v4);
  // Deprecated IPv4-compatible addresses are never routable: a "public" one is still reserved.
  if (via === 'ipv4-compatible' && kind === 'public') kind = 'reserved';
  return { kind, ip, label: LABELS[kind], via, embedded: formatIp({ family: 4, bytes: v4 }) };
}

function v6Class(b: Uint8Array, ip: string): AddressClass {
  const plain = (kind: AddressKind): AddressClass => ({ kind, ip, label: LABELS[kind] });
  const g0 = ((b[0] as number) << 8) | (b[1] as number);
  const g1 = ((b[2] as number) << 8) | (b[3] as number);
  if (allZero(b, 0, 16)) return plain('unspecified');
  if (allZero(b, 0, 15) && b[15] === 1) return plain('loopback');
  if (allZero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return embedded('ipv4-mapped', v4At(b, 12), ip);
  if (allZero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0)
    return embedded('siit', v4At(b, 12), ip);
  if (allZero(b, 0, 12)) return embedded('ipv4-compatible', v4At(b, 12), ip);
  if (g0 === 0x64 && g1 === 0xff9b && allZero(b, 4, 12)) return embedded('nat64', v4At(b, 12), ip);
  if (g0 === 0x64 && g1 === 0xff9b) return plain('reserved'); // incl. local-use 64:ff9b:1::/48
  if (g0 === 0x2002) return embedded('6to4', v4At(b, 2), ip);
  if (g0 === 0x2001 && g1 === 0) {
    // Teredo: the server is in bits 32-63, the client (the real peer) is the inverted last 32 bits.
    const client = embedded('teredo', v4At(b, 12, true), ip);
    if (client.kind !== 'public') return client;
    const server = embedded('teredo', v4At(b, 4), ip);
    return server.kind !== 'public' ? server : client;
  }
  if (g0 === 0xfd00 && g1 === 0x0ec2 && allZero(b, 4, 14) && b[14] === 0x02 && b[15] === 0x54) return plain('metadata');
  if ((g0 & 0xffc0) === 0xfe80) return plain('link-local');
  if ((g0 & 0xffc0) === 0xfec0) return plain('reserved'); // site-local (deprecated)
  if ((g0 & 0xfe00) === 0xfc00) return plain('ula');
  if ((g0 & 0xff00) === 0xff00) return plain('multicast');
  if (g0 === 0x0100 && allZero(b, 2, 8)) return plain('reserved'); // discard-only 100::/64
  if (g0 === 0x2001 && g1 < 0x0200) return plain('reserved'); // IETF protocol assignments 2001::/23
  if (g0 === 0x2001 && g1 === 0x0db8) return plain('reserved'); // documentation
  if (g0 === 0x3fff && g1 < 0x1000) return plain('reserved'); // documentation 3fff::/20
  if ((g0 & 0xe000) !== 0x2000) return plain('reserved'); // outside global unicast 2000::/3
  return plain('public');
}

/**
 * Every IPv4 address embedded in an IPv6 address, by the same forms classification uses (mapped,
 * SIIT, IPv4-compatible, NAT64 `64:ff9b::/96`, 6to4, and both Teredo server and client). Empty for
 * IPv4 addresses and plain IPv6. Operator CIDR lists are matched against these too, so a deny on
 * `10.1.0.0/16` also holds for `64:ff9b::a01:203`.
 */
export function embeddedIpv4s(ip: IpAddress): readonly IpAddress[] {
  if (ip.family !== 6) return [];
  const b = ip.bytes;
  const v4 = (at: number, invert = false): IpAddress => ({ family: 4, bytes: v4At(b, at, invert) });
  const g0 = ((b[0] as number) << 8) | (b[1] as number);
  const g1 = ((b[2] as number) << 8) | (b[3] as number);
  if (allZero(b, 0, 16) || (allZero(b, 0, 15) && b[15] === 1)) return [];
  if (allZero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return [v4(12)];
  if (allZero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) return [v4(12)];
  if (allZero(b, 0, 12)) return [v4(12)];
  if (g0 === 0x64 && g1 === 0xff9b && allZero(b, 4, 12)) return [v4(12)];
  if (g0 === 0x2002) return [v4(2)];
  if (g0 === 0x2001 && g1 === 0) return [v4(12, true), v4(4)];
  return [];
}

/**
 * Classifies an IP address by its bytes. Accepts an address parsed by `parseIp` from
 * `@trust/core`, or its strict text form (dotted quad, or IPv6 with or without brackets).
 * Returns `undefined` for text that is not an IP address; loose IPv4 spellings such as `127.1`
 * are not addresses here (the URL parser turns them into dotted quads first).
 *
 * @example
 * classifyAddress('::ffff:7f00:1'); // { kind: 'loopback', via: 'ipv4-mapped', embedded: '127.0.0.1', ... }
 * classifyAddress('100.63.255.255')?.kind; // 'public'
 */
export function classifyAddress(address: string | IpAddress): AddressClass | undefined {
  const ip = typeof address === 'string' ? parseIp(address) : address;
  if (ip === undefined) return undefined;
  const text = formatIp(ip);
  if (ip.family === 4) {
    const kind = v4Kind(ip.bytes);
    return { kind, ip: text, label: LABELS[kind] };
  }
  return v6Class(ip.bytes, text);
}
