import { formatIp } from '@trust/core';

/**
 * Reads a SOCKS5 address (RFC 1928: ATYP, then an IPv4, IPv6 or length-prefixed name, then a
 * 16-bit port) starting at `at`. `'short'` when `buf` ends before it does, `'unsupported'` for an
 * unknown ATYP. A name is returned as sent (latin1); judging it is the caller's job.
 *
 * @example
 * readSocksAddress(Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, 0, 80]), 3); // { host: '127.0.0.1', port: 80, end: 10 }
 */
export function readSocksAddress(
  buf: Buffer,
  at: number,
): { host: string; port: number; end: number } | 'short' | 'unsupported' {
  if (buf.length < at + 2) return 'short';
  const atyp = buf[at];
  let host: string;
  let next: number;
  if (atyp === 0x01) {
    next = at + 5;
    if (buf.length < next + 2) return 'short';
    host = formatIp({ family: 4, bytes: buf.subarray(at + 1, next) });
  } else if (atyp === 0x04) {
    next = at + 17;
    if (buf.length < next + 2) return 'short';
    host = formatIp({ family: 6, bytes: buf.subarray(at + 1, next) });
  } else if (atyp === 0x03) {
    const len = buf[at + 1] as number;
    next = at + 2 + len;
    if (buf.length < next + 2) return 'short';
    host = buf.subarray(at + 2, next).toString('latin1');
  } else {
    return 'unsupported';
  }
  return { host, port: buf.readUInt16BE(next), end: next + 2 };
}
