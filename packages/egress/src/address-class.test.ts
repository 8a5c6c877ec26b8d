import { describe, expect, it } from 'vitest';
import { classifyAddress } from './address-class.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback', undefined, undefined],
    ['::1', 'loopback', undefined, undefined],
    ['::ffff:7f00:1', 'loopback', 'ipv4-mapped', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', 'loopback', 'ipv4-mapped', '127.0.0.1'],
    ['::ffff:0:a00:1', 'private', 'siit', '10.0.0.1'],
    ['::7f00:1', 'loopback', 'ipv4-compatible', '127.0.0.1'],
    ['::808:808', 'reserved', 'ipv4-compatible', '8.8.8.8'],
    ['64:ff9b::a9fe:a9fe', 'metadata', 'nat64', '169.254.169.254'],
    ['64:ff9b::808:808', 'public', 'nat64', '8.8.8.8'],
    ['2002:c0a8:101::1', 'private', '6to4', '192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:3f57:fdf2', 'private', 'teredo', '192.168.2.13'],
    ['2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7', 'metadata', 'teredo', '169.254.169.254'],
    ['fd00:ec2::254', 'metadata', undefined, undefined],
    ['fd00:ec2::255', 'ula', undefined, undefined],
    ['100.100.100.200', 'metadata', undefined, undefined],
    ['100.64.0.0', 'cgnat', undefined, undefined],
    ['100.63.255.255', 'public', undefined, undefined],
    ['0.0.0.0', 'unspecified', undefined, undefined],
    ['::', 'unspecified', undefined, undefined],
    ['::ffff:0.0.0.0', 'unspecified', 'ipv4-mapped', '0.0.0.0'],
    ['fe80::1', 'link-local', undefined, undefined],
    ['febf:ffff::1', 'link-local', undefined, undefined],
    ['fec0::1', 'reserved', undefined, undefined],
    ['ff02::1', 'multicast', undefined, undefined],
    ['255.255.255.255', 'broadcast', undefined, undefined],
    ['2001:db8::1', 'reserved', undefined, undefined],
    ['2001:4860::', 'public', undefined, undefined],
    ['2606:4700:4700::1111', 'public', undefined, undefined],
  ] as const)('%s → %s', (ip, kind, via, embedded) => {
    const c = classifyAddress(ip);
    expect(c?.kind).toBe(kind);
    expect(c?.via).toBe(via);
    expect(c?.embedded).toBe(embedded);
  });

  it('returns canonical text and refuses non-addresses (loose IPv4 is the URL parser’s job)', () => {
    expect(classifyAddress('2001:DB8:0:0:0:0:0:1')?.ip).toBe('2001:db8::1');
    expect(classifyAddress('127.1')).toBeUndefined();
    expect(classifyAddress('localhost')).toBeUndefined();
  });
});
