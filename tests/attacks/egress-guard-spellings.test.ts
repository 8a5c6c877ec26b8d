// Attack corpus: every spelling of a blocked address must be blocked by the decision API
// (no traffic is sent). Names resolve through an injected resolver only.
import { describe, expect, it } from 'vitest';
import { classifyAddress, createEgressGuard, evaluateUrl } from '@trust/egress';

const DAEMON = 7385;
const stub = async (host: string): Promise<string[]> => {
  const table: Record<string, string[]> = {
    'pub.test': ['93.184.216.34'],
    'loop.test': ['127.0.0.1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'mappedhex.test': ['::ffff:a9fe:a9fe'],
    'unspec.test': ['0.0.0.0'],
    'unspec6.test': ['::'],
    'mixed.test': ['93.184.216.34', '10.0.0.7'],
    'zoned.test': ['fe80::1%eth0'],
    'garbage.test': ['not-an-ip'],
    'loose.test': ['127.1'],
    'empty.test': [],
  };
  const a = table[host];
  if (a === undefined) throw Object.assign(new Error(`nx ${host}`), { code: 'ENOTFOUND' });
  return a;
};
const guard = createEgressGuard({ mode: 'default', protectedPorts: [DAEMON], resolve: stub });
const strict = createEgressGuard({ mode: 'strict', resolve: stub });
const local = createEgressGuard({ mode: 'allow-local', protectedPorts: [DAEMON], resolve: stub });

async function code(g: typeof guard, url: string): Promise<string> {
  const v = await g.evaluateUrl(url);
  return v.allow ? 'ALLOW' : v.code;
}

describe('attack: protected daemon port reached through another loopback spelling', () => {
  const spellings = [
    '127.0.0.1',
    '127.1',
    '127.0.1',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    '017700000001',
    '0x7F.0X0.0.1',
    '127.000.000.001',
    '127.0.0.1.',
    '127.0.0.2',
    '127.255.255.254',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '[0000::1]',
    '[::ffff:127.0.0.1]',
    '[::FFFF:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[2002:7f00:1::]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    '[::ffff:0:7f00:1]',
    'localhost',
    'localhost.',
    'LOCALHOST',
    'LocalHost.',
    'a.localhost',
    'a.b.localhost.',
    'ⓛⓞⓒⓐⓛⓗⓞⓢⓣ',
    'ｌｏｃａｌｈｏｓｔ',
    'ⅼocalhost',
    'l\u00ADocalhost',
    'local\u200Bhost',
    '%6c%6f%63%61%6c%68%6f%73%74',
    '%31%32%37.0.0.1',
    '127.0.0.1%2e',
    '127。0。0。1',
    '127．0．0．1',
    '127｡0｡0｡1',
    '１２７.０.０.１',
    'loop.test',
    'mapped.test',
    'loc\talhost',
  ];
  it.each(spellings)('http://%s:7385/ is denied (daemon port, every loopback spelling)', async (host) => {
    const c = await code(guard, `http://${host}:${DAEMON}/`);
    expect(['EGRESS_PROTECTED_PORT', 'EGRESS_LOOPBACK', 'EGRESS_RESERVED']).toContain(c);
  });
  it.each(spellings)('http://%s:7385/ is denied in allow-local mode too', async (host) => {
    expect(await code(local, `http://${host}:${DAEMON}/`)).not.toBe('ALLOW');
  });
  it.each(spellings)('http://%s/ is denied in strict mode', async (host) => {
    expect(await code(strict, `http://${host}/`)).not.toBe('ALLOW');
  });
  it('the daemon port is computed for ports with leading zeros and for ws/wss default ports', async () => {
    expect(await code(guard, `http://127.0.0.1:0${DAEMON}/`)).toBeTrustCode('EGRESS_PROTECTED_PORT');
    const g80 = createEgressGuard({
      protectedPorts: [80, 443],
      resolve: stub,
      schemes: ['http:', 'https:', 'ws:', 'wss:'],
    });
    for (const u of [
      'http://127.0.0.1/',
      'http://127.0.0.1:80/',
      'https://localhost/',
      'ws://[::1]/',
      'wss://127.1/',
    ]) {
      expect(await code(g80, u), u).toBeTrustCode('EGRESS_PROTECTED_PORT');
    }
  });
  it('allowCidrs cannot re-open the protected port', async () => {
    const g = createEgressGuard({ protectedPorts: [DAEMON], allowCidrs: ['127.0.0.0/8', '::1/128'], resolve: stub });
    expect(await code(g, `http://127.0.0.1:${DAEMON}/`)).toBeTrustCode('EGRESS_PROTECTED_PORT');
    expect(await code(g, `http://[::ffff:7f00:1]:${DAEMON}/`)).toBeTrustCode('EGRESS_PROTECTED_PORT');
  });
});

describe('attack: unspecified address reaches the local host', () => {
  it.each([
    '0',
    '0x0',
    '00000000',
    '0.0.0.0',
    '0.0.0.0.',
    '[::]',
    '[::0]',
    '[::ffff:0:0]',
    '[::ffff:0.0.0.0]',
    '0.1.2.3',
    'unspec.test',
    'unspec6.test',
  ])('http://%s:8080/ is EGRESS_UNSPECIFIED in every mode', async (host) => {
    for (const g of [guard, strict, local])
      expect(await code(g, `http://${host}:8080/`)).toBeTrustCode('EGRESS_UNSPECIFIED');
  });
  it('allowCidrs 0.0.0.0/0 cannot open the unspecified, metadata or link-local classes', async () => {
    const g = createEgressGuard({ allowCidrs: ['0.0.0.0/0', '::/0'], resolve: stub });
    expect(await code(g, 'http://0.0.0.0/')).toBeTrustCode('EGRESS_UNSPECIFIED');
    expect(await code(g, 'http://[::]/')).toBeTrustCode('EGRESS_UNSPECIFIED');
    expect(await code(g, 'http://169.254.169.254/')).toBeTrustCode('EGRESS_METADATA');
    expect(await code(g, 'http://169.254.1.1/')).toBeTrustCode('EGRESS_LINK_LOCAL');
    expect(await code(g, 'http://[fe80::1]/')).toBeTrustCode('EGRESS_LINK_LOCAL');
  });
});

describe('attack: cloud metadata in every spelling', () => {
  it.each([
    '169.254.169.254',
    '169.254.43518',
    '169.0xfe.0xa9fe',
    '2852039166',
    '0xA9FEA9FE',
    '0251.0376.0251.0376',
    '[::ffff:169.254.169.254]',
    '[::ffff:a9fe:a9fe]',
    '[64:ff9b::a9fe:a9fe]',
    '[2002:a9fe:a9fe::]',
    '[::ffff:0:a9fe:a9fe]',
    '[fd00:ec2::254]',
    '100.100.100.200',
    'metadata.google.internal',
    'metadata.google.internal.',
    'METADATA.GOOGLE.INTERNAL',
    'metadata.goog',
    'instance-data',
    'mappedhex.test',
  ])('http://%s/ is denied in every mode, allow-local included', async (host) => {
    for (const g of [guard, strict, local]) {
      const c = await code(g, `http://${host}/`);
      expect(['EGRESS_METADATA', 'EGRESS_LINK_LOCAL', 'EGRESS_RESERVED']).toContain(c);
    }
  });
});

describe('attack: private ranges through embeddings (default mode)', () => {
  it.each([
    '10.0.0.1',
    '012.0.0.1',
    '0x0a.0.0.1',
    '167772161',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '[::ffff:10.0.0.1]',
    '[::ffff:a00:1]',
    '[64:ff9b::10.0.0.1]',
    '[2002:c0a8:101::]',
    '[2001:0:4136:e378:8000:63bf:3f57:fdf2]',
    '[::10.0.0.1]',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[fec0::1]',
    '[64:ff9b:1::1]',
    '[2001:db8::1]',
    '[100::1]',
    '[::1:0:0:0]',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '4294967295',
    '240.0.0.1',
    '[ff02::1]',
    '192.0.2.1',
    '198.51.100.1',
    '203.0.113.1',
    '198.18.0.1',
    'mixed.test',
  ])('http://%s/ is denied', async (host) => {
    expect(await code(guard, `http://${host}/`)).not.toBe('ALLOW');
  });
});

describe('attack: authority confusion (userinfo, backslash, fragment, missing slashes)', () => {
  it('userinfo is refused whatever the last @ points at', async () => {
    for (const u of [
      'http://a@127.0.0.1/',
      'http://pub.test@127.0.0.1/',
      'http://127.1.1.1:80@127.2.2.2:80/',
      'http://127.1.1.1:80@@127.2.2.2/',
      'http://u:p@pub.test/',
    ]) {
      expect(await code(guard, u), u).toBeTrustCode('EGRESS_USERINFO');
    }
  });
  it('backslash and # end the authority: the host judged is the one dialled (127.0.0.1)', async () => {
    for (const u of [
      'http://127.0.0.1\\@pub.test/',
      'http://127.0.0.1#@pub.test/',
      'http://127.0.0.1?@pub.test/',
      'http:/127.0.0.1',
      'http:\\\\127.0.0.1',
      'http:127.0.0.1',
      ' http://127.0.0.1/ ',
    ]) {
      const v = await strict.evaluateUrl(u);
      expect(v.allow, u).toBe(false);
      expect(v.host, u).toBe('127.0.0.1');
    }
  });
  it('forbidden host code points, zone ids and bracketed v4 do not parse', async () => {
    for (const u of [
      'http://127.0.0.1%00.pub.test/',
      'http://%5B::1%5D/',
      'http://127.0.0.1%3A80/',
      'http://[fe80::1%25eth0]/',
      'http://[::1%25lo]/',
      'http://[127.0.0.1]/',
      'http://[::ffff:127.1]/',
      'http://[::1]./',
      'http://7147006462/',
      'http://425.510.425.510/',
      'http://256.0.0.1/',
      'http://pub.test:65536/',
      'http://pub.test:+80/',
    ]) {
      expect(await code(guard, u), u).toBeTrustCode('EGRESS_URL_INVALID');
    }
  });
});

describe('attack: non-http schemes', () => {
  it.each([
    'file:///etc/passwd',
    'file://127.0.0.1/etc/passwd',
    'data:text/plain,hi',
    'gopher://127.0.0.1:6379/_x',
    'dict://127.0.0.1:11211/',
    'ftp://pub.test/',
    'ldap://127.0.0.1/',
    'javascript:alert(1)',
    'blob:http://pub.test/1',
    'http+unix://%2Frun%2Fdocker.sock/',
    'ws://pub.test/',
    'jar:http://pub.test/!/',
    'HTTP+UNIX://x/',
  ])('%s is EGRESS_SCHEME (or does not parse)', async (u) => {
    expect(['EGRESS_SCHEME', 'EGRESS_URL_INVALID']).toContain(await code(guard, u));
  });
});

describe('attack: hostile resolver answers fail closed', () => {
  it.each([
    ['a name whose answers mix public and private', 'mixed.test', 'EGRESS_PRIVATE_ADDRESS'],
    ['an IPv4-mapped loopback AAAA answer on the daemon port', 'mapped.test', 'EGRESS_PROTECTED_PORT'],
    ['a link-local answer with a zone id', 'zoned.test', 'EGRESS_LINK_LOCAL'],
    ['a non-IP answer', 'garbage.test', 'EGRESS_DNS_FAILED'],
    ['a loose IPv4 answer (127.1)', 'loose.test', 'EGRESS_DNS_FAILED'],
    ['an empty answer', 'empty.test', 'EGRESS_DNS_EMPTY'],
    ['NXDOMAIN', 'nx.test', 'EGRESS_DNS_FAILED'],
  ])('%s is denied', async (_what, host, expected) => {
    expect(await code(guard, `http://${host}:${host === 'mixed.test' ? 80 : DAEMON}/`)).toBe(expected);
  });
  it('a resolver that never answers is a timeout deny, not a hang', async () => {
    const g = createEgressGuard({ resolve: () => new Promise(() => {}), resolveTimeoutMs: 20 });
    expect(await code(g, 'http://hang.test/')).toBeTrustCode('EGRESS_DNS_TIMEOUT');
  });
  it('a resolver that returns a non-array or throws a non-Error is denied', async () => {
    const g1 = createEgressGuard({ resolve: (async () => 'x') as never });
    expect(await code(g1, 'http://x.test/')).not.toBe('ALLOW');
    const g2 = createEgressGuard({
      resolve: async () => {
        throw null;
      },
    });
    expect(await code(g2, 'http://x.test/')).toBeTrustCode('EGRESS_DNS_FAILED');
  });
  it('localhost names are loopback by name: a resolver answering public for them is ignored', async () => {
    const lie = createEgressGuard({ mode: 'strict', resolve: async () => ['93.184.216.34'] });
    for (const h of ['localhost', 'localhost.', 'x.localhost', 'LOCALHOST.'])
      expect(await code(lie, `http://${h}/`), h).toBeTrustCode('EGRESS_LOOPBACK');
  });
  it('the top-level evaluateUrl helper applies the same rules', async () => {
    const v = await evaluateUrl(`http://[::ffff:7f00:1]:${DAEMON}/`, { protectedPorts: [DAEMON] });
    expect(v.allow).toBe(false);
  });
});

describe('attack: over-blocking boundaries stay open (so a blanket deny would fail loudly)', () => {
  it.each([
    '100.63.255.255',
    '100.128.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '169.253.255.255',
    '169.255.0.1',
    '126.255.255.255',
    '128.0.0.1',
    '[2001:4860:4860::8888]',
    '[2001:db9::1]',
    '[2606:4700:4700::1111]',
    'pub.test',
  ])('http://%s/ is allowed', async (host) => {
    expect(await code(guard, `http://${host}/`)).toBe('ALLOW');
  });
});

describe('attack: classifyAddress on raw spellings', () => {
  it('mapped, SIIT, compat, NAT64, 6to4 and Teredo forms of loopback all classify as loopback', () => {
    for (const a of [
      '::ffff:7f00:1',
      '::ffff:0:7f00:1',
      '::7f00:1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      '[::ffff:127.0.0.1]',
    ]) {
      expect(classifyAddress(a)?.kind, a).toBe('loopback');
    }
  });
  it('loose IPv4 is not an address for classifyAddress (no silent decimal reading of 0177.0.0.1)', () => {
    for (const a of ['127.1', '0177.0.0.1', '2130706433', '0x7f.0.0.1', '127.0.0.1.', ' 127.0.0.1'])
      expect(classifyAddress(a), a).toBeUndefined();
  });
});

describe('attack: operator denyCidrs dodged with another spelling', () => {
  it(
    'a denied block stays denied as a dotted quad, a loose form, ' + 'an IPv4-mapped literal and a mapped DNS answer',
    async () => {
      const g = createEgressGuard({
        mode: 'allow-local',
        denyCidrs: ['10.1.0.0/16', '192.168.7.0/24'],
        resolve: async () => ['::ffff:10.1.2.3'],
      });
      for (const u of [
        'http://10.1.2.3/',
        'http://10.1.515/',
        'http://0xa010203/',
        'http://[::ffff:10.1.2.3]/',
        'http://[::ffff:a01:203]/',
        'http://[::FFFF:192.168.7.1]/',
        'http://mapped.test/',
      ]) {
        expect(await code(g, u), u).toBeTrustCode('EGRESS_DENIED_CIDR');
      }
    },
  );
});
