import { describe, expect, it } from 'vitest';
import { createEgressGuard } from './guard.js';
import type { GuardOptions } from './guard-options.js';

const code = (v: { allow: boolean; code?: string }) => (v.allow ? 'allow' : v.code);

describe('attack: operator denyCidrs dodged with an IPv6 form that embeds IPv4', () => {
  const local: GuardOptions = { mode: 'allow-local', denyCidrs: ['10.1.0.0/16'] };
  it.each([
    ['nat64', 'http://[64:ff9b::10.1.2.3]/'],
    ['6to4', 'http://[2002:a01:203::1]/'],
    ['siit', 'http://[::ffff:0:a01:203]/'],
    ['ipv4-compatible', 'http://[::10.1.2.3]/'],
    ['ipv4-mapped', 'http://[::ffff:10.1.2.3]/'],
    // Teredo: client is the inverted last 32 bits (~10.1.2.3 = f5fe:fdfc), server bits 32-63
    ['teredo client', 'http://[2001:0:4136:e378:8000:63bf:f5fe:fdfc]/'],
    ['teredo server', 'http://[2001:0:a01:203:8000:63bf:3f57:fdf2]/'],
  ])('allow-local + denyCidrs 10.1.0.0/16 denies the %s form', async (_form, url) => {
    expect(code(await createEgressGuard(local).evaluateUrl(url))).toBeTrustCode('EGRESS_DENIED_CIDR');
  });

  it('the plain address outside the denied block stays allowed in allow-local', async () => {
    expect(code(await createEgressGuard(local).evaluateUrl('http://[64:ff9b::10.2.0.1]/'))).toBe('allow');
  });

  it('default mode: denyCidrs 93.184.216.0/24 holds for the NAT64 and 6to4 spellings of a public address', async () => {
    const g = createEgressGuard({ denyCidrs: ['93.184.216.0/24'] });
    expect(code(await g.evaluateUrl('http://[64:ff9b::93.184.216.34]/'))).toBeTrustCode('EGRESS_DENIED_CIDR');
    expect(code(await g.evaluateUrl('http://[2002:5db8:d822::1]/'))).toBeTrustCode('EGRESS_DENIED_CIDR');
    expect(code(await g.evaluateUrl('http://[64:ff9b::93.184.217.34]/'))).toBe('allow');
  });

  it('a deny on the IPv6 wrapper still holds', async () => {
    const g = createEgressGuard({ denyCidrs: ['64:ff9b::/96'] });
    expect(code(await g.evaluateUrl('http://[64:ff9b::8.8.8.8]/'))).toBeTrustCode('EGRESS_DENIED_CIDR');
  });
});

describe('allowCidrs and IPv4-embedding forms', () => {
  it('an allow on the IPv4 block opens its embedded forms (judged by the embedded address)', async () => {
    const g = createEgressGuard({ allowCidrs: ['10.0.0.0/8'] });
    expect((await g.evaluateUrl('http://[64:ff9b::10.1.2.3]/')).rule).toBe('allow-cidr:10.0.0.0/8');
    expect(code(await g.evaluateUrl('http://[64:ff9b::192.168.1.1]/'))).toBeTrustCode('EGRESS_PRIVATE_ADDRESS');
  });

  it('an allow on the IPv6 wrapper alone does not open a private or loopback embedded address', async () => {
    const g = createEgressGuard({ mode: 'strict', allowCidrs: ['64:ff9b::/96', '2002::/16', '::ffff:0:0/96'] });
    expect(code(await g.evaluateUrl('http://[64:ff9b::10.1.2.3]/'))).toBeTrustCode('EGRESS_PRIVATE_ADDRESS');
    expect(code(await g.evaluateUrl('http://[64:ff9b::127.0.0.1]/'))).toBeTrustCode('EGRESS_LOOPBACK');
    expect(code(await g.evaluateUrl('http://[2002:c0a8:101::1]/'))).toBeTrustCode('EGRESS_PRIVATE_ADDRESS');
    expect(code(await g.evaluateUrl('http://[64:ff9b::8.8.8.8]/'))).toBe('allow');
  });

  it('Teredo opens only when every embedded address is covered', async () => {
    const g = createEgressGuard({ allowCidrs: ['10.0.0.0/8'] });
    // server 65.54.227.120 (public, not covered), client 10.1.2.3 (private)
    expect(code(await g.evaluateUrl('http://[2001:0:4136:e378:8000:63bf:f5fe:fdfc]/'))).toBeTrustCode(
      'EGRESS_PRIVATE_ADDRESS',
    );
  });

  it('the floor still wins: allowCidrs never opens embedded metadata or a protected port', async () => {
    const g = createEgressGuard({ protectedPorts: [7385], allowCidrs: ['0.0.0.0/0', '::/0'] });
    expect(code(await g.evaluateUrl('http://[64:ff9b::169.254.169.254]/'))).toBeTrustCode('EGRESS_METADATA');
    expect(code(await g.evaluateUrl('http://[64:ff9b::127.0.0.1]:7385/'))).toBeTrustCode('EGRESS_PROTECTED_PORT');
  });
});
