/**
 * Byte-level IP addresses. Security decisions about addresses compare bytes, never strings:
 * parse once here, then match CIDRs on the bytes.
 *
 * Only the strict textual forms are accepted: a dotted quad of four decimal parts without
 * leading zeros, and IPv6 in every RFC 4291 form. Loose IPv4 spellings such as `127.1`,
 * `0x7f.0.0.1`, `0177.0.0.1` or `2130706433` are NOT parsed here: the WHATWG URL parser, which
 * egress uses to decide what the host of a URL is, normalises those to a dotted quad first.
 */

/** An IP address as bytes: 4 bytes for IPv4, 16 for IPv6. Treat `bytes` as read-only. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

/** An address with the zone id (`%eth0`) that followed it, if any. */
export interface ZonedIpAddress {
  readonly ip: IpAddress;
  /** The zone id without the `%`, or `undefined` when there was none. */
  readonly zone: string | undefined;
}

const ZONE = /^[A-Za-z0-9._~-]+$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;
const DEC_PART = /^(?:0|[1-9][0-9]{0,2})$/;

function makeIp(family: 4 | 6, bytes: Uint8Array): IpAddress {
  return Object.freeze({ family, bytes });
}

function parseIpv4Bytes(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] as string;
    if (!DEC_PART.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

/** Turns `a:b:c` (possibly ending in a dotted quad) into 16-bit groups. */
function parseGroups(parts: readonly string[], allowV4Tail: boolean): number[] | undefined {
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (allowV4Tail && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4Bytes(part);
      if (!v4) return undefined;
      groups.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
    } else {
      if (!HEX_GROUP.test(part)) return undefined;
      groups.push(parseInt(part, 16));
    }
  }
  return groups;
}

function parseIpv6Bytes(text: string): Uint8Array | undefined {
  if (text === '') return undefined;
  const dbl = text.indexOf('::');
  if (dbl !== text.lastIndexOf('::')) return undefined; // two `::`, or `:::`
  const head = dbl < 0 ? text : text.slice(0, dbl);
  const tail = dbl < 0 ? '' : text.slice(dbl + 2);
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === '' ? [] : tail.split(':');
  const headGroups = parseGroups(headParts, dbl < 0);
  const tailGroups = parseGroups(tailParts, true);
  if (!headGroups || !tailGroups) return undefined;
  const explicit = headGroups.length + tailGroups.length;
  if (dbl < 0 ? explicit !== 8 : explicit > 7) return undefined;
  const groups = [...headGroups, ...new Array<number>(8 - explicit).fill(0), ...tailGroups];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  return out;
}

/**
 * Parses an IP address and reports its zone id. Accepts a dotted-quad IPv4 address, or an IPv6
 * address optionally in brackets (`[::1]`) and optionally with a zone id (`fe80::1%eth0`).
 * Brackets and zones are only accepted on IPv6. Returns `undefined` for anything else.
 *
 * @example
 * parseIpWithZone('fe80::1%eth0'); // { ip: { family: 6, bytes: ... }, zone: 'eth0' }
 */
export function parseIpWithZone(text: string): ZonedIpAddress | undefined {
  let s = text;
  let bracketed = false;
  if (s.startsWith('[')) {
    if (!s.endsWith(']')) return undefined;
    s = s.slice(1, -1);
    bracketed = true;
  }
  let zone: string | undefined;
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (!ZONE.test(zone)) return undefined;
  }
  if (!s.includes(':')) {
    if (bracketed || zone !== undefined) return undefined;
    const v4 = parseIpv4Bytes(s);
    return v4 ? { ip: makeIp(4, v4), zone: undefined } : undefined;
  }
  const v6 = parseIpv6Bytes(s);
  return v6 ? { ip: makeIp(6, v6), zone } : undefined;
}

/**
 * Parses an IP address to bytes (see `parseIpWithZone` for the accepted forms). A zone id is
 * accepted and dropped; use `parseIpWithZone` to see it. Loose IPv4 forms (`127.1`, `0x7f.1`,
 * `2130706433`) and leading zeros (`010.0.0.1`) return `undefined`.
 *
 * @example
 * parseIp('10.0.0.1');       // { family: 4, bytes: Uint8Array [10, 0, 0, 1] }
 * parseIp('::ffff:1.2.3.4'); // { family: 6, ... }
 * parseIp('127.1');          // undefined
 */
export function parseIp(text: string): IpAddress | undefined {
  return parseIpWithZone(text)?.ip;
}

/**
 * True for an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`).
 *
 * @example
 * isIpv4Mapped(parseIp('::ffff:10.0.0.1')!); // true
 */
export function isIpv4Mapped(ip: IpAddress): boolean {
  if (ip.family !== 6) return false;
  for (let i = 0; i < 10; i++) if (ip.bytes[i] !== 0) return false;
  return ip.bytes[10] === 0xff && ip.bytes[11] === 0xff;
}

/**
 * Turns an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) into the IPv4 address; returns any other
 * address unchanged. Canonicalise with this before classifying an address.
 *
 * @example
 * formatIp(unmapIpv4(parseIp('::ffff:127.0.0.1')!)); // '127.0.0.1'
 */
export function unmapIpv4(ip: IpAddress): IpAddress {
  return isIpv4Mapped(ip) ? makeIp(4, ip.bytes.slice(12, 16)) : ip;
}

/**
 * True when both addresses have the same family and bytes (no unmapping).
 *
 * @example
 * ipEquals(parseIp('::1')!, parseIp('0:0:0:0:0:0:0:1')!); // true
 */
export function ipEquals(a: IpAddress, b: IpAddress): boolean {
  if (a.family !== b.family || a.bytes.length !== b.bytes.length) return false;
  return a.bytes.every((byte, i) => byte === b.bytes[i]);
}

/**
 * Formats an address: IPv4 as a dotted quad; IPv6 in RFC 5952 form (lowercase, no leading
 * zeros, the longest run of two or more zero groups compressed to `::`, the first on a tie).
 * IPv4-mapped addresses are written in hex (`::ffff:102:304`), as the WHATWG URL serialiser
 * does, so a formatted address equals a URL's bracket-less hostname.
 *
 * @example
 * formatIp(parseIp('2001:DB8:0:0:0:0:0:1')!); // '2001:db8::1'
 */
export function formatIp(ip: IpAddress): string {
  const b = ip.bytes;
  if (ip.family === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(((b[i * 2] as number) << 8) | (b[i * 2 + 1] as number));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}
