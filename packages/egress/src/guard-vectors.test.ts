import { describe, expect, it } from 'vitest';
import { createStubResolver } from '@trust/testing';
import { createEgressGuard } from './guard.js';
import type { GuardMode } from './guard-options.js';

// Decision table: every URL judged in all three modes. Names resolve through a stub resolver;
// nothing here opens a connection.
const A = 'allow';
const LB = 'EGRESS_LOOPBACK';
const PR = 'EGRESS_PRIVATE_ADDRESS';
const LL = 'EGRESS_LINK_LOCAL';
const MD = 'EGRESS_METADATA';
const UN = 'EGRESS_UNSPECIFIED';
const MC = 'EGRESS_MULTICAST';
const BC = 'EGRESS_BROADCAST';
const RS = 'EGRESS_RESERVED';
const UL = 'EGRESS_ULA';
const PP = 'EGRESS_PROTECTED_PORT';
const SC = 'EGRESS_SCHEME';
const UI = 'EGRESS_USERINFO';
const IV = 'EGRESS_URL_INVALID';

type Row = [url: string, def: string, local: string, strict: string];
const loop = (url: string): Row => [url, A, A, LB];
const priv = (url: string): Row => [url, PR, A, PR];
const all =
  (code: string) =>
  (url: string): Row => [url, code, code, code];

const rows: Row[] = [
  // loopback in every spelling the URL parser accepts
  ...[
    'http://127.0.0.1/',
    'http://127.1/',
    'http://127.0.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://017700000001/',
    'http://0x7F.0X0.0.1/',
    'http://127.000.000.001/',
    'http://127.0.0.1./',
    'http://127.127.127.127/',
    'http://127.255.255.254/',
    'http://[::1]/',
    'http://[0000::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::FFFF:127.0.0.1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://localhost/',
    'http://LOCALHOST/',
    'http://localhost./',
    'http://foo.localhost/',
    'http://foo.localhost./',
    'http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/',
    'http://ｌｏｃａｌｈｏｓｔ/',
    'http://%6c%6f%63%61%6c%68%6f%73%74/',
    'http://127。0。0。1/',
    'http://１２７.０.０.１/',
    'http://%31%32%37.0.0.1/',
    'http://loc\talhost/',
    '  http://127.0.0.1/\n',
    'http:/127.0.0.1',
    'http:\\\\127.0.0.1',
    'http://127.0.0.1\\@pub.example/',
    'http://127.0.0.1#@pub.example/',
    'http://loop.test/',
    'http://127.0.0.1.nip.io/',
    'http://localtest.me/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[::ffff:0:7f00:1]/',
    'https://localhost/',
    'http://127.0.0.1:8080/x?y=1',
  ].map(loop),
  // the protected port, in any local spelling, in every mode
  ...[
    'http://127.0.0.1:7385/',
    'http://127.1:7385/',
    'http://[::1]:7385/',
    'http://[::ffff:7f00:1]:7385/',
    'http://localhost:7385/',
    'http://0x7f000001:07385/',
    'http://loop.test:7385/',
    'http://10.0.0.1:7385/',
    'https://127.0.0.1:7385/',
    'http://foo.localhost:7385/',
    'http://[64:ff9b::7f00:1]:7385/',
  ].map(all(PP)),
  // RFC 1918 and CGNAT
  ...[
    'http://10.0.0.1/',
    'http://10.255.255.255/',
    'http://012.0.0.1/',
    'http://0x0a.0.0.1/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.0.1/',
    'http://192.168.255.255/',
    'http://3232235521/',
    'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:a00:1]/',
    'http://[::ffff:192.168.1.1]/',
    'http://lan.test/',
    'http://mixed.test/',
    'http://100.64.0.0/',
    'http://100.127.255.255/',
    'http://100.64.0.1/',
    'http://cgnat.test/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://[2002:c0a8:101::]/',
    'http://[2001:0:4136:e378:8000:63bf:3f57:fdf2]/',
    'http://100.100.100.201/',
  ].map(priv),
  // always blocked
  ...[
    'http://0/',
    'http://0x0/',
    'http://00000000/',
    'http://0.0.0.0/',
    'http://0.1.2.3/',
    'http://[::]/',
    'http://[::ffff:0.0.0.0]/',
    'http://[::ffff:0:0]/',
    'http://v6any.test/',
    'http://[::2]/',
    'http://0.0.0.0:7385/',
    'http://[::]:7385/',
  ].map(all(UN)),
  ...[
    'http://169.254.0.1/',
    'http://169.254.255.255/',
    'http://[fe80::1]/',
    'http://[febf::1]/',
    'http://[::ffff:169.254.1.1]/',
  ].map(all(LL)),
  ...[
    'http://169.254.169.254/',
    'http://169.254.43518/',
    'http://169.0xfe.0xa9fe/',
    'http://2852039166/',
    'http://0xA9FEA9FE/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://meta.test/',
    'http://mapped-meta.test/',
    'http://metadata.google.internal/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::]/',
    'http://169.254.169.254:7385/',
  ].map(all(MD)),
  ...['http://224.0.0.1/', 'http://239.255.255.255/', 'http://[ff02::1]/', 'http://[ff05::2]/'].map(all(MC)),
  ...['http://255.255.255.255/', 'http://4294967295/', 'http://0xffffffff/'].map(all(BC)),
  ...[
    'http://240.0.0.1/',
    'http://192.0.2.1/',
    'http://198.51.100.1/',
    'http://203.0.113.1/',
    'http://198.18.0.1/',
    'http://198.19.255.255/',
    'http://192.88.99.1/',
    'http://192.0.0.8/',
    'http://[2001:db8::1]/',
    'http://[100::1]/',
    'http://[fec0::1]/',
    'http://[64:ff9b:1::1]/',
    'http://[::8.8.8.8]/',
    'http://[4000::1]/',
    'http://[3fff::1]/',
  ].map(all(RS)),
  ...['http://[fc00::1]/', 'http://[fd12:3456::1]/', 'http://[fdff:ffff::1]/', 'http://ula.test/'].map(all(UL)),
  // schemes, userinfo, syntax
  ...[
    'file:///etc/passwd',
    'gopher://127.0.0.1/',
    'ftp://public.test/',
    'data:text/plain,hi',
    'javascript:alert(1)',
    'dict://127.0.0.1:11211/',
    'ldap://127.0.0.1/',
    'blob:http://public.test/x',
    'http+unix://%2Ftmp%2Fs/',
    'ws://public.test/',
  ].map(all(SC)),
  ...[
    'http://a@127.0.0.1/',
    'http://user:pass@public.test/',
    'http://127.1.1.1:80@127.2.2.2/',
    'http://127.1.1.1:80@@127.2.2.2/',
    'https://:secret@public.test/',
  ].map(all(UI)),
  ...[
    'http://7147006462/',
    'http://0x41414141A9FEA9FE/',
    'http://425.510.425.510/',
    'http://256.0.0.1/',
    'http://1.2.3.08/',
    'http://[fe80::1%25eth0]/',
    'http://[::1%25lo]/',
    'http://[127.0.0.1]/',
    'http://[::ffff:127.1]/',
    'http://127.0.0.1%00.x/',
    'http://%5B::1%5D/',
    'http://127.0.0.1:65536/',
    'http://127.0.0.1:80aaa/',
    'http://localhost:+11211aaa/',
    'not a url',
    '',
    'http://',
  ].map(all(IV)),
  // resolver failures fail closed
  ['http://fail.test/', 'EGRESS_DNS_FAILED', 'EGRESS_DNS_FAILED', 'EGRESS_DNS_FAILED'],
  ['http://garbage.test/', 'EGRESS_DNS_FAILED', 'EGRESS_DNS_FAILED', 'EGRESS_DNS_FAILED'],
  ['http://empty.test/', 'EGRESS_DNS_EMPTY', 'EGRESS_DNS_EMPTY', 'EGRESS_DNS_EMPTY'],
  ['http://hang.test/', 'EGRESS_DNS_TIMEOUT', 'EGRESS_DNS_TIMEOUT', 'EGRESS_DNS_TIMEOUT'],
  // allow-side boundaries: over-blocking must fail too
  ...[
    'http://100.63.255.255/',
    'http://100.128.0.1/',
    'http://172.15.255.255/',
    'http://172.32.0.1/',
    'http://169.253.255.255/',
    'http://169.255.0.1/',
    'http://126.255.255.255/',
    'http://128.0.0.1/',
    'http://11.0.0.1/',
    'http://9.255.255.255/',
    'http://192.167.255.255/',
    'http://192.169.0.1/',
    'http://1.1.1.1/',
    'http://8.8.8.8/',
    'http://93.184.216.34/',
    'http://223.255.255.255/',
    'http://198.17.255.255/',
    'http://198.20.0.1/',
    'http://203.0.114.1/',
    'http://192.0.3.1/',
    'http://[2001:4860::]/',
    'http://[2001:4860:4860::8888]/',
    'http://[2606:4700:4700::1111]/',
    'http://[2001:db9::1]/',
    'http://[2001:200::1]/',
    'http://[2002:808:808::]/',
    'http://[64:ff9b::8.8.8.8]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/',
    'http://public.test/',
    'http://dual.test/',
    'https://public.test/',
    'https://public.test:8443/path?q=1',
    'http://93.184.216.34:7385/',
    'HTTP://PUBLIC.TEST./',
  ].map(all(A)),
];

const resolve = createStubResolver({
  'public.test': ['93.184.216.34'],
  'dual.test': ['93.184.216.34', '2606:4700:4700::1111'],
  'lan.test': ['192.168.1.10'],
  'mixed.test': ['93.184.216.34', '10.0.0.1'],
  'loop.test': ['127.0.0.1'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'localtest.me': ['127.0.0.1', '::1'],
  'meta.test': ['169.254.169.254'],
  'mapped-meta.test': ['::ffff:169.254.169.254'],
  'v6any.test': ['::'],
  'cgnat.test': ['100.64.0.1'],
  'ula.test': ['fd12:3456::1'],
  'empty.test': [],
  'garbage.test': ['not-an-ip'],
  'hang.test': { hang: true },
});

const modes: GuardMode[] = ['default', 'allow-local', 'strict'];
const guards = Object.fromEntries(
  modes.map((mode) => [
    mode,
    createEgressGuard({ mode, protectedPorts: [7385], resolve, resolveTimeoutMs: 30, cacheTtlMs: 0 }),
  ]),
);

const cases = rows.flatMap(([url, ...expected]) =>
  modes.map((mode, i) => ({ url, mode, expected: expected[i] as string })),
);

describe('URL decision table', () => {
  it('has at least 150 distinct URLs', () => {
    expect(new Set(rows.map((r) => r[0])).size).toBeGreaterThanOrEqual(150);
  });

  it.each(cases)('$mode: $url → $expected', async ({ url, mode, expected }) => {
    const v = await guards[mode]!.evaluateUrl(url);
    expect(v.allow ? 'allow' : v.code).toBe(expected);
    if (!v.allow) {
      expect(v.reason.length).toBeGreaterThan(0);
      expect(v.hint ?? '').not.toBe('');
    }
  });
});
