import { describe, expect, it } from 'vitest';
import { createStubResolver } from '@trust/testing';
import { parseCidr } from '@trust/core';
import { createEgressGuard, evaluateUrl, explainUrl } from './guard.js';
import { redactUrl } from './redact.js';

describe('operator CIDR overrides', () => {
  it('allowCidrs opens loopback in strict, ULA and private; never metadata, link-local or unspecified', async () => {
    const g = createEgressGuard({
      mode: 'strict',
      allowCidrs: ['127.0.0.1/32', 'fd12::/16', '10.0.0.0/8', '169.254.0.0/16', '0.0.0.0/8'],
    });
    expect((await g.evaluateUrl('http://127.0.0.1/')).rule).toBe('allow-cidr:127.0.0.1/32');
    expect((await g.evaluateUrl('http://127.0.0.2/')).allow).toBe(false);
    expect((await g.evaluateUrl('http://[fd12::5]/')).allow).toBe(true);
    expect((await g.evaluateUrl('http://10.1.1.1/')).allow).toBe(true);
    const meta = await g.evaluateUrl('http://169.254.169.254/');
    expect(meta.allow ? 'allow' : meta.code).toBeTrustCode('EGRESS_METADATA');
    const ll = await g.evaluateUrl('http://169.254.1.1/');
    expect(ll.allow ? 'allow' : ll.code).toBeTrustCode('EGRESS_LINK_LOCAL');
    const un = await g.evaluateUrl('http://0.0.0.0/');
    expect(un.allow ? 'allow' : un.code).toBeTrustCode('EGRESS_UNSPECIFIED');
  });

  it('denyCidrs wins over allowCidrs and over public', async () => {
    const g = createEgressGuard({ allowCidrs: ['93.184.216.0/24'], denyCidrs: ['93.184.216.34/32', '2606:4700::/32'] });
    const v = await g.evaluateUrl('http://93.184.216.34/');
    expect(v.allow ? 'allow' : v.code).toBeTrustCode('EGRESS_DENIED_CIDR');
    expect((await g.evaluateUrl('http://93.184.216.35/')).allow).toBe(true);
    const v6 = await g.evaluateUrl('http://[2606:4700:4700::1111]/');
    expect(v6.allow ? 'allow' : v6.code).toBeTrustCode('EGRESS_DENIED_CIDR');
    // a mapped form of a denied v4 address is denied too
    const mapped = await g.evaluateUrl('http://[::ffff:93.184.216.34]/');
    expect(mapped.allow ? 'allow' : mapped.code).toBeTrustCode('EGRESS_DENIED_CIDR');
  });

  it('protected ports cannot be opened by allowCidrs', async () => {
    const g = createEgressGuard({ protectedPorts: [7385], allowCidrs: ['127.0.0.0/8'] });
    const v = await g.evaluateUrl('http://127.0.0.1:7385/');
    expect(v.allow ? 'allow' : v.code).toBeTrustCode('EGRESS_PROTECTED_PORT');
  });

  it('accepts parsed Cidr values (the shape compilePolicy returns for guard settings)', async () => {
    const settings = {
      mode: 'strict' as const,
      allowCidrs: [parseCidr('127.0.0.1/32')!],
      denyCidrs: [parseCidr('8.8.8.0/24')!],
    };
    const g = createEgressGuard(settings);
    expect((await g.evaluateUrl('http://127.0.0.1/')).rule).toBe('allow-cidr:127.0.0.1/32');
    const v = await g.evaluateUrl('http://8.8.8.8/');
    expect(v.allow ? 'allow' : v.code).toBeTrustCode('EGRESS_DENIED_CIDR');
  });

  it('rejects bad options, listing every problem', () => {
    const bad = { mode: 'open' as never, protectedPorts: [0, 70000], allowCidrs: ['10.0.0.0/33', 'nope'] };
    // six problems, each an invalid value (none an unknown key)
    const paths = ['mode', 'protectedPorts.0', 'protectedPorts.1', 'allowCidrs.0', 'allowCidrs.1', 'resolveTimeoutMs'];
    expect(() => createEgressGuard({ ...bad, resolveTimeoutMs: 0 })).toRefuseOptions(
      'EGRESS_OPTIONS_INVALID',
      paths.map((path) => ({ code: 'EGRESS_OPTIONS_INVALID', path })),
    );
  });
});

describe('messages, hints and verdict shape', () => {
  it('states what, why and how to permit it', async () => {
    const v = await evaluateUrl('http://10.0.0.5/', {});
    expect(v.allow).toBe(false);
    if (v.allow) return;
    expect(v.reason).toBe('egress denied: 10.0.0.5:80 is a private (RFC 1918) address (rule block-private)');
    expect(v.hint).toBe(`use mode 'allow-local' or add "10.0.0.5/32" to allowCidrs to permit it`);
    expect(v.addresses).toEqual(['10.0.0.5']);
    expect(v.url?.href).toBe('http://10.0.0.5/');
    expect(v.port).toBe(80);
  });

  it('names the embedding in the reason', async () => {
    const v = await evaluateUrl('http://[64:ff9b::a9fe:a9fe]/', {});
    expect(!v.allow && v.reason).toContain('nat64 form of 169.254.169.254');
  });

  it('uses the scheme list it is given (ws/wss for WebSocket)', async () => {
    expect((await evaluateUrl('ws://8.8.8.8/', { schemes: ['ws:', 'wss:'] })).allow).toBe(true);
    const v = await evaluateUrl('https://8.8.8.8/', { schemes: ['ws:', 'wss:'] });
    expect(v.allow ? 'allow' : v.code).toBeTrustCode('EGRESS_SCHEME');
  });

  it('computes default ports for https/wss against protected ports', async () => {
    expect((await evaluateUrl('https://127.0.0.1/', { protectedPorts: [443] })).allow).toBe(false);
    expect((await evaluateUrl('wss://localhost/', { protectedPorts: [443], schemes: ['wss:'] })).allow).toBe(false);
    expect((await evaluateUrl('http://127.0.0.1/', { protectedPorts: [443] })).allow).toBe(true);
  });
});

describe('resolver cache', () => {
  it('reuses an answer within the TTL and asks again after it', async () => {
    let t = 0;
    const resolve = createStubResolver({ 'c.test': { sequence: [['8.8.8.8'], ['10.0.0.1']] } });
    const g = createEgressGuard({ resolve, cacheTtlMs: 50 });
    expect((await g.evaluateUrl('http://c.test/')).allow).toBe(true);
    expect((await g.evaluateUrl('http://c.test/')).allow).toBe(true);
    expect(resolve.count('c.test')).toBe(1);
    await new Promise((r) => setTimeout(r, 70));
    t++;
    expect((await g.evaluateUrl('http://c.test/')).allow).toBe(false);
    expect(resolve.count('c.test')).toBe(2);
    expect(t).toBe(1);
  });
});

describe('explainUrl', () => {
  it('lists parse, scheme, userinfo, host, resolve, classify, rule and verdict', async () => {
    const resolve = createStubResolver({ 'mixed.test': ['8.8.8.8', '192.168.1.1'] });
    const { steps, verdict } = await explainUrl('http://mixed.test:8080/x?secret=1', { resolve });
    expect(steps.map((s) => s.step)).toEqual([
      'parse',
      'scheme',
      'userinfo',
      'host',
      'resolve',
      'classify',
      'classify',
      'rule',
      'verdict',
    ]);
    expect(steps.find((s) => s.step === 'resolve')?.detail).toBe('mixed.test → 8.8.8.8, 192.168.1.1');
    expect(steps.filter((s) => s.step === 'classify').map((s) => s.ok)).toEqual([true, false]);
    expect(steps.at(-1)).toEqual({ step: 'verdict', ok: false, detail: 'EGRESS_PRIVATE_ADDRESS' });
    expect(JSON.stringify(steps)).not.toContain('secret=1');
    expect(verdict.allow).toBe(false);
  });

  it('stops at the first failing step', async () => {
    const { steps } = await explainUrl('ftp://x/', {});
    expect(steps.map((s) => [s.step, s.ok])).toEqual([
      ['parse', true],
      ['scheme', false],
      ['verdict', false],
    ]);
  });
});

describe('redactUrl', () => {
  it.each([
    ['https://u:p@api.test/v1?key=s3cr3t&q=cats#frag', 'https://api.test/v1?key=REDACTED&q=REDACTED'],
    ['http://h.test/', 'http://h.test/'],
    ['not a url', '(unparsable URL)'],
  ])('%s → %s', (input, out) => {
    expect(redactUrl(input)).toBe(out);
  });
});
