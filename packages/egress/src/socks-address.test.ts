import { describe, expect, it } from 'vitest';
import { readSocksAddress } from './socks-address.js';

const b = (...bytes: number[]) => Buffer.from(bytes);

describe('readSocksAddress', () => {
  it.each([
    ['IPv4', b(0, 0, 0, 1, 127, 0, 0, 1, 0, 80, 9), { host: '127.0.0.1', port: 80, end: 10 }],
    ['IPv6', b(0, 0, 0, 4, ...Array(15).fill(0), 1, 1, 187), { host: '::1', port: 443, end: 22 }],
    [
      'a name',
      Buffer.concat([b(0, 0, 0, 3, 4), Buffer.from('a.bc'), b(0x1f, 0x90)]),
      { host: 'a.bc', port: 8080, end: 11 },
    ],
  ])('reads %s with its port and where it ends', (_name, buf, want) => {
    expect(readSocksAddress(buf, 3)).toEqual(want);
  });

  it.each([
    ['no ATYP yet', b(0, 0, 0)],
    ['a cut IPv4', b(0, 0, 0, 1, 127, 0, 0, 1, 0)],
    ['a cut IPv6', b(0, 0, 0, 4, 0, 0)],
    ['a cut name', b(0, 0, 0, 3, 9, 97)],
  ])('asks for more bytes on %s', (_name, buf) => {
    expect(readSocksAddress(buf, 3)).toBe('short');
  });

  it('refuses an unknown address type', () => {
    expect(readSocksAddress(b(0, 0, 0, 7, 1, 2, 3, 4, 5, 6), 3)).toBe('unsupported');
  });
});
