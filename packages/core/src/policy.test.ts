import { describe, expect, it } from 'vitest';
import type { Decision } from './decision.js';
import type { TrustErrorCode } from './trust-error-code.js';
import type { EgressPolicy } from './egress-policy.js';
import { chain, denyAll } from './policy-chain.js';
import { allowHosts, denyHosts } from './policy-hosts.js';
import { injectHeaders } from './policy-inject.js';
import { createTestContext, createTestRequest } from './testing/requests.js';
import { thrownBy } from './testing/thrown-by.js';

function expectDecision(d: Decision, expected: 'allow' | TrustErrorCode): void {
  if (expected === 'allow') expect(d).toBeAllowed();
  else expect(d).toBeDenied(expected);
}

const ctx = createTestContext();
const http = (p: EgressPolicy, url: string, method = 'GET') =>
  p.authorizeHttp(createTestRequest(url, { method }), ctx) as Decision;

describe('allowHosts', () => {
  const gate = allowHosts(['api.example.com', '*.cdn.example.com', '10.0.0.0/8', 'svc.example.com:8443']);
  it.each([
    ['https://api.example.com/x', 'allow'],
    ['https://API.EXAMPLE.COM./x', 'allow'],
    ['https://a.cdn.example.com/', 'allow'],
    ['https://cdn.example.com/', 'EGRESS_HOST_NOT_ALLOWED'],
    ['https://example.com/', 'EGRESS_HOST_NOT_ALLOWED'],
    ['http://10.1.2.3/', 'allow'],
    ['http://0x0a.1.2.3/', 'allow'],
    ['http://[::ffff:10.1.2.3]/', 'allow'],
    ['http://11.1.2.3/', 'EGRESS_HOST_NOT_ALLOWED'],
    ['https://svc.example.com:8443/', 'allow'],
    ['https://svc.example.com/', 'EGRESS_HOST_NOT_ALLOWED'],
    ['https://evil.test/', 'EGRESS_HOST_NOT_ALLOWED'],
  ] as const)('%s -> %s', (url, expected) => {
    expectDecision(http(gate, url), expected);
  });

  // CONNECT is a raw tunnel: a rule without a port opens it to 443 only (issue: an http grant
  // must not become an opaque TCP tunnel to SSH or Redis on an allowed host).
  describe('CONNECT ports', () => {
    const tunnels = allowHosts([
      'api.example.com',
      'svc.example.com:8443',
      '*.cdn.example.com',
      '10.0.0.0/8',
      '[2001:db8::1]:6379',
      'both.example.com',
      'both.example.com:22',
    ]);
    it.each([
      ['https://api.example.com:443/', 'allow', undefined],
      ['https://api.example.com:22/', 'EGRESS_TUNNEL_PORT_NOT_ALLOWED', undefined],
      ['https://api.example.com:8443/', 'EGRESS_TUNNEL_PORT_NOT_ALLOWED', undefined],
      ['https://svc.example.com:8443/', 'allow', 8443],
      ['https://svc.example.com:443/', 'EGRESS_HOST_NOT_ALLOWED', undefined],
      ['https://svc.example.com:8444/', 'EGRESS_HOST_NOT_ALLOWED', undefined],
      ['https://a.cdn.example.com:443/', 'allow', undefined],
      ['https://a.cdn.example.com:25/', 'EGRESS_TUNNEL_PORT_NOT_ALLOWED', undefined],
      ['https://10.1.2.3:443/', 'allow', undefined],
      ['https://10.1.2.3:6379/', 'EGRESS_TUNNEL_PORT_NOT_ALLOWED', undefined],
      ['https://[2001:db8::1]:6379/', 'allow', 6379],
      ['https://[2001:db8::1]:443/', 'EGRESS_HOST_NOT_ALLOWED', undefined],
      ['https://both.example.com:22/', 'allow', 22],
      ['https://both.example.com:443/', 'allow', undefined],
      ['https://evil.test:443/', 'EGRESS_HOST_NOT_ALLOWED', undefined],
    ] as const)('CONNECT %s -> %s (port %s)', (url, expected, port) => {
      const d = http(tunnels, url, 'CONNECT');
      expectDecision(d, expected);
      if (d.allow) expect(d.port).toBe(port);
    });

    it('a plain request with a port-less rule still matches every port; a named port is carried', () => {
      expect(http(tunnels, 'http://api.example.com:8080/')).toEqual({
        allow: true,
        rule: 'allow-hosts:api.example.com',
      });
      expect(http(tunnels, 'https://svc.example.com:8443/')).toEqual({
        allow: true,
        rule: 'allow-hosts:svc.example.com:8443',
        port: 8443,
      });
    });

    it('the port refusal says how to permit it', () => {
      expect(http(tunnels, 'https://api.example.com:22/', 'connect')).toMatchObject({
        allow: false,
        hint: expect.stringContaining('"api.example.com:22"'),
      });
    });
  });

  it('names the rule and gives a hint', () => {
    const d = http(allowHosts(['a.example.com'], { name: 'mine' }), 'https://b.example.com/');
    expect(d).toMatchObject({ allow: false, rule: 'mine', hint: expect.stringContaining('"b.example.com"') });
    expect(http(allowHosts(['a.example.com'], { name: 'mine' }), 'https://a.example.com/')).toEqual({
      allow: true,
      rule: 'mine:a.example.com',
    });
  });

  it.each([
    // the rule was host:port: the hint must not open every port of the host
    [['svc.example.com:8443'], 'https://svc.example.com:9443/', '"svc.example.com:9443"'],
    [['svc.example.com:8443'], 'https://svc.example.com/', '"svc.example.com:443"'],
    // a non-default port is named
    [['a.example.com'], 'http://b.example.com:8080/', '"b.example.com:8080"'],
    // the default port of an unscoped host keeps the plain name
    [['a.example.com'], 'https://b.example.com/', '"b.example.com"'],
  ] as const)('a deny hint for %j and %s suggests %s', (rules, url, suggestion) => {
    const d = http(allowHosts([...rules], { name: 'mine' }), url);
    expect(d).toMatchObject({ allow: false, hint: `add ${suggestion} to the allow list of mine to permit it` });
  });

  it('allows nothing with an empty list', () => {
    expectDecision(http(allowHosts([]), 'https://api.example.com/'), 'EGRESS_HOST_NOT_ALLOWED');
  });

  it.each([
    [undefined, 'DELETE', 'allow'],
    [['GET', 'post'], 'POST', 'allow'],
    [['GET'], 'get', 'allow'],
    [['GET'], 'POST', 'EGRESS_METHOD_NOT_ALLOWED'],
    [[], 'GET', 'EGRESS_METHOD_NOT_ALLOWED'],
  ] as const)('methods %j with %s -> %s', (methods, method, expected) => {
    expectDecision(http(allowHosts(['a.example.com'], { methods }), 'https://a.example.com/', method), expected);
  });

  it('allows TCP/UDP only when enabled, matching the vetted IP for IP rules', () => {
    const off = allowHosts(['db.example.com']);
    expect(off.authorizeTcp).toBeUndefined();
    expect(off.authorizeUdp).toBeUndefined();
    const on = allowHosts(['db.example.com:5432', '10.0.0.0/8'], { tcp: true, udp: true });
    expectDecision(on.authorizeTcp!({ host: 'db.example.com', port: 5432 }, ctx) as Decision, 'allow');
    expectDecision(
      on.authorizeTcp!({ host: 'db.example.com', port: 5433 }, ctx) as Decision,
      'EGRESS_HOST_NOT_ALLOWED',
    );
    expectDecision(on.authorizeUdp!({ host: 'x.internal', port: 53, ip: '10.0.0.53' }, ctx) as Decision, 'allow');
    expectDecision(
      on.authorizeUdp!({ host: 'x.internal', port: 53, ip: '192.168.0.1' }, ctx) as Decision,
      'EGRESS_HOST_NOT_ALLOWED',
    );
  });

  it('validates every rule and method once, at construction', () => {
    const err = thrownBy(() => allowHosts(['ok.example.com', '*', '*.com'], { methods: ['GET', 'G T'] }));
    expect(err.code).toBeTrustCode('POLICY_INVALID');
    expect(err.problems.map((p) => [p.code, p.path])).toEqual([
      ['POLICY_HOST_RULE_INVALID', 'rules[1]'],
      ['POLICY_HOST_RULE_INVALID', 'rules[2]'],
      ['POLICY_METHOD_INVALID', 'methods[1]'],
    ]);
  });
});

describe('denyHosts', () => {
  const filter = denyHosts(['admin.example.com', '169.254.0.0/16']);
  it.each([
    ['https://admin.example.com/', 'EGRESS_HOST_DENIED'],
    ['https://api.example.com/', 'allow'],
    ['http://169.254.169.254/', 'EGRESS_HOST_DENIED'],
  ] as const)('in a chain with a gate: %s -> %s', (url, expected) => {
    expectDecision(http(chain(filter, allowHosts(['*.example.com', '169.254.169.254'])), url), expected);
  });

  it.each([
    ['https://admin.example.com/', 'EGRESS_HOST_DENIED'],
    ['https://api.example.com/', 'EGRESS_NO_POLICY'],
  ] as const)('on its own fails closed: %s -> %s', (url, expected) => {
    expectDecision(http(filter, url), expected);
  });
  it('is a filter and denies peers too', () => {
    expect(filter.role).toBe('filter');
    expectDecision(
      filter.authorizeTcp!({ host: 'x', port: 1, ip: '169.254.1.1' }, ctx) as Decision,
      'EGRESS_HOST_DENIED',
    );
    expectDecision(filter.authorizeUdp!({ host: 'admin.example.com', port: 1 }, ctx) as Decision, 'EGRESS_HOST_DENIED');
  });
});

describe('injectHeaders', () => {
  const inject = injectHeaders(['api.example.com'], { authorization: 'Bearer s3cret', 'x-api-key': 'k' });
  it('sets headers on matching hosts only, replacing caller values', () => {
    const req = createTestRequest('https://api.example.com/', { headers: { authorization: 'Bearer forged' } });
    expect(chain(allowHosts(['api.example.com']), inject).authorizeHttp(req, ctx)).toBeAllowed();
    expect(req.headers.get('authorization')).toBe('Bearer s3cret');
    expect(req.headers.get('x-api-key')).toBe('k');
    const other = createTestRequest('https://evil.test/');
    chain(allowHosts(['evil.test']), inject).authorizeHttp(other, ctx);
    expect(other.headers.get('authorization')).toBeNull();
  });
  it('never grants: alone or as the only member of a chain', () => {
    expectDecision(http(chain(inject), 'https://api.example.com/'), 'EGRESS_NO_POLICY');
    expectDecision(http(inject, 'https://api.example.com/'), 'EGRESS_NO_POLICY');
  });

  it('a custom filter written as a plain object: its allow never grants', () => {
    const custom: EgressPolicy = {
      name: 'custom',
      role: 'filter',
      authorizeHttp: () => ({ allow: true, rule: 'custom' }),
    };
    expectDecision(http(chain(custom), 'https://a.example.com/'), 'EGRESS_NO_POLICY');
    expectDecision(http(chain(custom, allowHosts(['a.example.com'])), 'https://a.example.com/'), 'allow');
  });
  it('rejects bad header names and values without echoing the value', () => {
    const err = thrownBy(() => injectHeaders(['api.example.com'], { 'bad name': 'x', good: 'top-secret\r\nx: y' }));
    expect(err.code).toBeTrustCode('POLICY_INVALID');
    expect(err.problems.map((p) => p.code)).toEqual(['POLICY_HEADER_INVALID', 'POLICY_HEADER_INVALID']);
    expect(JSON.stringify({ m: err.message, p: err.problems })).not.toContain('top-secret');
  });
});

describe('chain: evaluation order (deny, allow, deny)', () => {
  const gateA = allowHosts(['a.example.com'], { name: 'gate-a' });
  const gateB = allowHosts(['b.example.com'], { name: 'gate-b' });
  const denyA = denyHosts(['a.example.com'], { name: 'deny-a' });
  it.each([
    ['no policies', [], 'a.example.com', 'EGRESS_NO_POLICY'],
    ['only a filter', [denyHosts(['x.example.com'])], 'a.example.com', 'EGRESS_NO_POLICY'],
    ['one gate allows', [gateA], 'a.example.com', 'allow'],
    ['one gate denies', [gateA], 'b.example.com', 'EGRESS_HOST_NOT_ALLOWED'],
    ['second gate allows', [gateA, gateB], 'b.example.com', 'allow'],
    ['no gate allows', [gateA, gateB], 'c.example.com', 'EGRESS_HOST_NOT_ALLOWED'],
    ['deny filter before gate', [denyA, gateA], 'a.example.com', 'EGRESS_HOST_DENIED'],
    ['deny filter after gate', [gateA, denyA], 'a.example.com', 'EGRESS_HOST_DENIED'],
    ['deny-all before gate', [denyAll, gateA], 'a.example.com', 'EGRESS_DENY_ALL'],
    ['deny-all after gate', [gateA, denyAll], 'a.example.com', 'EGRESS_DENY_ALL'],
    ['deny-all alone', [denyAll], 'a.example.com', 'EGRESS_DENY_ALL'],
    ['nested chain', [chain(gateB), chain(denyA, gateA)], 'a.example.com', 'EGRESS_HOST_DENIED'],
  ] as const)('%s -> %s', (_label, policies, host, expected) => {
    expectDecision(http(chain(...(policies as readonly EgressPolicy[])), `https://${host}/`), expected);
  });

  it('reports the first gate deny (with its hint) when no gate allows', () => {
    const d = http(chain(gateA, gateB), 'https://c.example.com/');
    expect(d).toMatchObject({ allow: false, rule: 'gate-a' });
  });

  it('runs filters after an allow, so headers are injected', () => {
    const req = createTestRequest('https://a.example.com/');
    chain(gateA, injectHeaders(['a.example.com'], { 'x-k': 'v' })).authorizeHttp(req, ctx);
    expect(req.headers.get('x-k')).toBe('v');
  });

  it('supports async policies', async () => {
    const slowGate: EgressPolicy = { name: 'slow', authorizeHttp: async () => ({ allow: true, rule: 'slow' }) };
    const slowDeny: EgressPolicy = {
      name: 'slow-deny',
      role: 'filter',
      authorizeHttp: async () => ({ allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'no' }),
    };
    expect(await chain(slowGate).authorizeHttp(createTestRequest('https://z.test/'), ctx)).toEqual({
      allow: true,
      rule: 'slow',
    });
    expectDecision(
      await chain(slowGate, slowDeny).authorizeHttp(createTestRequest('https://z.test/'), ctx),
      'EGRESS_POLICY_DENIED',
    );
    expectDecision(
      await chain(slowDeny, gateA).authorizeHttp(createTestRequest('https://a.example.com/'), ctx),
      'EGRESS_POLICY_DENIED',
    );
    expectDecision(
      await chain(slowGate, denyA).authorizeHttp(createTestRequest('https://a.example.com/'), ctx),
      'EGRESS_HOST_DENIED',
    );
  });

  it('skips policies without a TCP/UDP method, and denies when none answers', () => {
    const tcpGate = allowHosts(['db.example.com'], { tcp: true });
    expectDecision(
      chain(gateA, tcpGate).authorizeTcp!({ host: 'db.example.com', port: 5432 }, ctx) as Decision,
      'allow',
    );
    expectDecision(chain(gateA).authorizeTcp!({ host: 'a.example.com', port: 1 }, ctx) as Decision, 'EGRESS_NO_POLICY');
    expectDecision(chain(gateA).authorizeUdp!({ host: 'a.example.com', port: 1 }, ctx) as Decision, 'EGRESS_NO_POLICY');
    expectDecision(
      chain(tcpGate, denyHosts(['db.example.com'])).authorizeTcp!({ host: 'db.example.com', port: 1 }, ctx) as Decision,
      'EGRESS_HOST_DENIED',
    );
  });
});
