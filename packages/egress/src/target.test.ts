import { describe, expect, it } from 'vitest';
import { formatIp, type Deny } from '@trust/core';
import { explainUrl } from './guard.js';
import { isDenyResult, parseTarget, type Target } from './target.js';

describe('parseTarget', () => {
  it('canonical host, effective port, and the literal bytes on demand', () => {
    const t = parseTarget('http://0x7f000001:8080/x?y', ['http:']) as Target;
    expect(isDenyResult(t)).toBe(false);
    expect([t.scheme, t.host, t.port]).toEqual(['http:', '127.0.0.1', 8080]);
    expect(t.ip && formatIp(t.ip)).toBe('127.0.0.1');
    expect(t.ip).toBe(t.ip); // parsed once
    const v6 = parseTarget('https://[::FFFF:7F00:1]/', ['https:']) as Target;
    expect([v6.host, v6.port, v6.ip?.family]).toEqual(['::ffff:7f00:1', 443, 6]);
    const name = parseTarget('http://Example.COM./', ['http:']) as Target;
    expect([name.host, name.ip]).toEqual(['example.com', undefined]);
  });

  it('refuses bad input with stable codes', () => {
    expect((parseTarget('nope', ['http:']) as Deny).code).toBeTrustCode('EGRESS_URL_INVALID');
    expect((parseTarget('ftp://a.test/', ['http:']) as Deny).code).toBeTrustCode('EGRESS_SCHEME');
    expect((parseTarget('http://u:p@a.test/', ['http:']) as Deny).code).toBeTrustCode('EGRESS_USERINFO');
  });

  it('explanations still say whether the host is a literal', async () => {
    const host = async (url: string) =>
      (await explainUrl(url, { resolve: async () => ['93.184.216.34'] })).steps.find((s) => s.step === 'host')?.detail;
    expect(await host('http://2130706433/')).toBe('127.0.0.1 (IPv4 literal), port 80');
    expect(await host('http://[::1]:81/')).toBe('::1 (IPv6 literal), port 81');
    expect(await host('http://a.test/')).toBe('a.test (name), port 80');
  });
});
