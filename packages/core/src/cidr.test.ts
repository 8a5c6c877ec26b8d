import { describe, expect, it } from 'vitest';
import { parseIp } from './address.js';
import { cidrContains, formatCidr, parseCidr } from './cidr.js';

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['192.168.1.77/24', '192.168.1.0/24'],
    ['172.16.0.0/12', '172.16.0.0/12'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['1.2.3.4', '1.2.3.4/32'],
    ['1.2.3.4/32', '1.2.3.4/32'],
    ['fc00::/7', 'fc00::/7'],
    ['fdff::1/7', 'fc00::/7'],
    ['fe80::/10', 'fe80::/10'],
    ['::1', '::1/128'],
    ['::/0', '::/0'],
    ['::ffff:0:0/96', '::ffff:0:0/96'],
    ['2001:db8::ff/120', '2001:db8::/120'],
  ])('%s is %s', (text, formatted) => {
    const cidr = parseCidr(text);
    expect(cidr && formatCidr(cidr)).toBe(formatted);
  });

  it.each([
    '',
    '/8',
    '10.0.0.0/',
    '10.0.0.0/33',
    '10.0.0.0/08',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    '10.0.0.0/ 8',
    '10/8',
    '10.0/16',
    '::/129',
    '[::1]/128',
    '[::1]',
    'fe80::1%eth0/64',
    'example.com/8',
  ])('rejects %j', (text) => {
    expect(parseCidr(text)).toBeUndefined();
  });
});

describe('cidrContains', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0', true],
    ['10.0.0.0/8', '10.255.255.255', true],
    ['10.0.0.0/8', '11.0.0.0', false],
    ['10.0.0.0/8', '9.255.255.255', false],
    ['172.16.0.0/12', '172.31.255.255', true],
    ['172.16.0.0/12', '172.32.0.0', false],
    ['1.2.3.4', '1.2.3.4', true],
    ['1.2.3.4', '1.2.3.5', false],
    ['0.0.0.0/0', '8.8.8.8', true],
    ['127.0.0.0/8', '::ffff:127.0.0.1', true],
    ['127.0.0.0/8', '::127.0.0.1', false],
    ['127.0.0.0/8', '::1', false],
    ['::/0', '1.2.3.4', false],
    ['::ffff:0:0/96', '1.2.3.4', false],
    ['::ffff:0:0/96', '::ffff:1.2.3.4', true],
    ['fc00::/7', 'fd12:3456::1', true],
    ['fc00::/7', 'fe00::1', false],
    ['fe80::/10', 'febf::1', true],
    ['fe80::/10', 'fec0::1', false],
    ['::1', '::1', true],
    ['::1', '::2', false],
  ])('%s contains %s: %s', (cidr, ip, expected) => {
    expect(cidrContains(parseCidr(cidr)!, parseIp(ip)!)).toBe(expected);
  });
});
