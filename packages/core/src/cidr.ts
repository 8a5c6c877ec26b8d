import { formatIp, parseIpWithZone, unmapIpv4, type IpAddress } from './address.js';

/** An address block: the network address (host bits cleared) and the prefix length. */
export interface Cidr {
  readonly address: IpAddress;
  readonly prefix: number;
}

const PREFIX = /^(?:0|[1-9][0-9]{0,2})$/;

function maskBytes(bytes: Uint8Array, prefix: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    const mask = bits === 0 ? 0 : (0xff << (8 - bits)) & 0xff;
    out[i] = (bytes[i] as number) & mask;
  }
  return out;
}

/**
 * Parses `address/prefix` (`10.0.0.0/8`, `fc00::/7`). A bare address is a single-host block
 * (`/32` or `/128`). Host bits below the prefix are accepted and cleared, so `10.1.2.3/8` is
 * `10.0.0.0/8`. Brackets, zone ids, loose IPv4 forms and prefixes with leading zeros or beyond
 * the family's width return `undefined`.
 *
 * @example
 * formatCidr(parseCidr('10.1.2.3/8')!); // '10.0.0.0/8'
 */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  if (addrText.startsWith('[')) return undefined;
  const parsed = parseIpWithZone(addrText);
  if (!parsed || parsed.zone !== undefined) return undefined;
  const width = parsed.ip.family === 4 ? 32 : 128;
  let prefix = width;
  if (slash >= 0) {
    const prefixText = text.slice(slash + 1);
    if (!PREFIX.test(prefixText)) return undefined;
    prefix = Number(prefixText);
    if (prefix > width) return undefined;
  }
  const address: IpAddress = Object.freeze({
    family: parsed.ip.family,
    bytes: maskBytes(parsed.ip.bytes, prefix),
  });
  return Object.freeze({ address, prefix });
}

/**
 * True when `ip` lies in `cidr`. Families must match, except that an IPv4 block also matches an
 * IPv4-mapped IPv6 address (`::ffff:10.0.0.1` is in `10.0.0.0/8`). An IPv6 block never matches
 * a plain IPv4 address.
 *
 * @example
 * cidrContains(parseCidr('10.0.0.0/8')!, parseIp('10.9.9.9')!); // true
 */
export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  const candidate = cidr.address.family === 4 ? unmapIpv4(ip) : ip;
  if (candidate.family !== cidr.address.family) return false;
  const masked = maskBytes(candidate.bytes, cidr.prefix);
  return masked.every((byte, i) => byte === cidr.address.bytes[i]);
}

/**
 * Formats a block as `address/prefix`, always with the prefix.
 *
 * @example
 * formatCidr(parseCidr('fc00::1/7')!); // 'fc00::/7'
 */
export function formatCidr(cidr: Cidr): string {
  return `${formatIp(cidr.address)}/${cidr.prefix}`;
}
