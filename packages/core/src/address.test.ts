import { describe, expect, it } from 'vitest';
import { formatIp, ipEquals, isIpv4Mapped, parseIp, parseIpWithZone, unmapIpv4 } from './address.js';

const bytesOf = (text: string): number[] => {
  const ip = parseIp(text);
  if (!ip) throw new Error(`did not parse: ${text}`);
  return [...ip.bytes];
};

describe('parseIp', () => {
  it.each([
    ['0.0.0.0', 4, '0.0.0.0'],
    ['127.0.0.1', 4, '127.0.0.1'],
    ['255.255.255.255', 4, '255.255.255.255'],
    ['10.0.0.1', 4, '10.0.0.1'],
    ['169.254.169.254', 4, '169.254.169.254'],
    ['::', 6, '::'],
    ['::1', 6, '::1'],
    ['[::1]', 6, '::1'],
    ['1::', 6, '1::'],
    ['2001:db8::1', 6, '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', 6, '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:ff00:0042:8329', 6, '2001:db8::ff00:42:8329'],
    ['1:2:3:4:5:6:7:8', 6, '1:2:3:4:5:6:7:8'],
    ['1:0:0:4:0:0:0:8', 6, '1:0:0:4::8'],
    ['1:0:0:4:5:0:0:8', 6, '1::4:5:0:0:8'],
    ['1:0:3:4:5:6:7:8', 6, '1:0:3:4:5:6:7:8'],
    ['::1:2:3:4:5:6:7', 6, '0:1:2:3:4:5:6:7'],
    ['1:2:3:4:5:6:7::', 6, '1:2:3:4:5:6:7:0'],
    ['::ffff:1.2.3.4', 6, '::ffff:102:304'],
    ['::ffff:7f00:1', 6, '::ffff:7f00:1'],
    ['::1.2.3.4', 6, '::102:304'],
    ['64:ff9b::192.0.2.33', 6, '64:ff9b::c000:221'],
    ['1:2:3:4:5:6:1.2.3.4', 6, '1:2:3:4:5:6:102:304'],
    ['fe80::1%eth0', 6, 'fe80::1'],
    ['[fe80::1%25eth0]', 6, 'fe80::1'],
    ['fc00::', 6, 'fc00::'],
  ] as const)('%s parses as IPv%i and formats as %s', (text, family, formatted) => {
    const ip = parseIp(text);
    expect(ip?.family).toBe(family);
    expect(ip && formatIp(ip)).toBe(formatted);
  });

  it.each([
    '',
    ' ',
    '127.1',
    '127.0.1',
    '0x7f.0.0.1',
    '0x7f000001',
    '2130706433',
    '010.0.0.1',
    '00.0.0.0',
    '1.2.3.04',
    '256.0.0.1',
    '1.2.3.4.5',
    '1.2.3.',
    '.1.2.3',
    '1..2.3',
    '1.2.3.-4',
    '+1.2.3.4',
    '1.2.3.4 ',
    '１.2.3.4',
    '[1.2.3.4]',
    '1.2.3.4%eth0',
    ':::',
    '1:::2',
    '1::2::3',
    ':1::2',
    '1::2:',
    ':1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7:8::',
    '::1:2:3:4:5:6:7:8',
    '12345::1',
    'g::1',
    '::ffff:1.2.3',
    '::ffff:1.2.3.256',
    '::ffff:01.2.3.4',
    '1.2.3.4::',
    '::1.2.3.4:1',
    '1:2:3:4:5:6:7:1.2.3.4',
    '[::1',
    '::1]',
    '[[::1]]',
    'fe80::1%',
    'fe80::1%eth 0',
    'fe80::1%eth0%1',
    'localhost',
    'example.com',
  ])('rejects %j', (text) => {
    expect(parseIp(text)).toBeUndefined();
  });

  it('returns the exact bytes', () => {
    expect(bytesOf('1.2.3.4')).toEqual([1, 2, 3, 4]);
    expect(bytesOf('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4]);
    expect(bytesOf('2001:db8::ab:1')).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0, 1]);
  });

  it('returns a frozen value', () => {
    expect(Object.isFrozen(parseIp('1.2.3.4'))).toBe(true);
  });
});

describe('parseIpWithZone', () => {
  it.each([
    ['fe80::1%eth0', 'eth0'],
    ['[fe80::1%25eth0]', '25eth0'],
    ['fe80::1', undefined],
    ['1.2.3.4', undefined],
  ])('%s has zone %s', (text, zone) => {
    expect(parseIpWithZone(text)?.zone).toBe(zone);
  });
});

describe('unmapIpv4 / isIpv4Mapped / ipEquals', () => {
  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1', true],
    ['::ffff:a00:1', '10.0.0.1', true],
    ['::127.0.0.1', '::7f00:1', false],
    ['64:ff9b::1.2.3.4', '64:ff9b::102:304', false],
    ['::1', '::1', false],
    ['1.2.3.4', '1.2.3.4', false],
  ])('%s unmaps to %s (mapped: %s)', (text, formatted, mapped) => {
    const ip = parseIp(text)!;
    expect(isIpv4Mapped(ip)).toBe(mapped);
    expect(formatIp(unmapIpv4(ip))).toBe(formatted);
  });

  it('compares bytes and family', () => {
    expect(ipEquals(parseIp('::1')!, parseIp('0:0:0:0:0:0:0:1')!)).toBe(true);
    expect(ipEquals(parseIp('1.2.3.4')!, parseIp('::ffff:1.2.3.4')!)).toBe(false);
    expect(ipEquals(parseIp('1.2.3.4')!, unmapIpv4(parseIp('::ffff:1.2.3.4')!))).toBe(true);
  });

  it('formats like the WHATWG URL serialiser', () => {
    for (const text of ['::ffff:1.2.3.4', '2001:0DB8::0:1', '1:0:0:2:0:0:0:3', '::', '0:0:1::']) {
      const fromUrl = new URL(`http://[${text}]/`).hostname.slice(1, -1);
      expect(formatIp(parseIp(text)!)).toBe(fromUrl);
    }
  });
});
