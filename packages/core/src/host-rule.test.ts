import { describe, expect, it } from 'vitest';
import { formatHostRule, matchHostRule, parseHostRule, parseHostRules, tryParseHostRule } from './host-rule.js';
import { TrustError } from './error.js';

describe('parseHostRule: canonical forms', () => {
  it.each([
    ['api.example.com', 'exact', 'api.example.com'],
    ['API.Example.COM', 'exact', 'api.example.com'],
    ['api.example.com.', 'exact', 'api.example.com'],
    ['localhost', 'exact', 'localhost'],
    ['my_host.internal', 'exact', 'my_host.internal'],
    ['xn--bcher-kva.example', 'exact', 'xn--bcher-kva.example'],
    ['api.example.com:443', 'exact', 'api.example.com:443'],
    ['*.example.com', 'wildcard', '*.example.com'],
    ['*.Example.com.', 'wildcard', '*.example.com'],
    ['*.example.co.uk', 'wildcard', '*.example.co.uk'],
    ['*.me.github.io', 'wildcard', '*.me.github.io'],
    ['*.example.com:8443', 'wildcard', '*.example.com:8443'],
    ['10.0.0.5', 'ip', '10.0.0.5'],
    ['10.0.0.5:80', 'ip', '10.0.0.5:80'],
    ['::1', 'ip', '::1'],
    ['[::1]', 'ip', '::1'],
    ['[::1]:8080', 'ip', '[::1]:8080'],
    ['2001:DB8:0::1', 'ip', '2001:db8::1'],
    ['::ffff:127.0.0.1', 'ip', '127.0.0.1'],
    ['10.0.0.0/8', 'cidr', '10.0.0.0/8'],
    ['10.1.2.3/8', 'cidr', '10.0.0.0/8'],
    ['fc00::/7', 'cidr', 'fc00::/7'],
  ])('%j is a %s rule %j', (text, kind, canonical) => {
    const rule = parseHostRule(text);
    expect(rule.kind).toBe(kind);
    expect(formatHostRule(rule)).toBe(canonical);
    expect(Object.isFrozen(rule)).toBe(true);
  });
});

describe('parseHostRule: rejections', () => {
  it.each([
    ['', 'write a host'],
    ['*', 'list the hosts'],
    ['*.', 'list the hosts'],
    ['*.com', 'public suffix'],
    ['*.com.', 'public suffix'],
    ['*.co.uk', 'public suffix'],
    ['*.github.io', 'public suffix'],
    ['*.COM.AU', 'public suffix'],
    ['api.*.example.com', 'leading "*." label'],
    ['*example.com', 'leading "*." label'],
    ['*.*.example.com', 'leading "*." label'],
    ['a*.example.com', 'leading "*." label'],
    ['example.*', 'leading "*." label'],
    ['api example.com', 'ASCII'],
    [' api.example.com', 'ASCII'],
    ['bücher.example', 'xn--'],
    ['api..example.com', 'valid host name'],
    ['.example.com', 'valid host name'],
    ['example.com..', 'valid host name'],
    ['-a.example.com', 'valid host name'],
    ['a!b.example.com', 'valid host name'],
    ['http://example.com', 'port'],
    ['example.com/path', 'CIDR'],
    ['a'.repeat(64) + '.com', 'valid host name'],
    ['127.1', 'dotted quad'],
    ['0x7f.0.0.1', 'dotted quad'],
    ['2130706433', 'dotted quad'],
    ['010.0.0.1', 'dotted quad'],
    ['example.com:0', 'port'],
    ['example.com:65536', 'port'],
    ['example.com:080', 'port'],
    ['example.com:', 'port'],
    ['example.com:http', 'port'],
    ['[::1', 'bracketed'],
    ['[1.2.3.4]', 'bracketed'],
    ['[::1]x', 'bracketed'],
    ['[fe80::1%eth0]', 'bracketed'],
    ['fe80::1%eth0', 'IPv6'],
    ['1::2::3', 'IPv6'],
    ['10.0.0.0/33', 'CIDR'],
    ['10.0.0.0/8:443', 'CIDR'],
  ])('%j is rejected (hint mentions %s)', (text, fragment) => {
    const r = tryParseHostRule(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(TrustError);
    expect(r.error.code).toBeTrustCode('POLICY_HOST_RULE_INVALID');
    expect(`${r.error.message} ${r.error.hint}`).toContain(fragment);
    expect(() => parseHostRule(text)).toThrowTrustError('POLICY_HOST_RULE_INVALID');
  });

  it('collects every problem of a list with paths', () => {
    const { rules, problems } = parseHostRules(['a.com', '*', 'b.com', '*.com'], 'http.allow');
    expect(rules.map(formatHostRule)).toEqual(['a.com', 'b.com']);
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['POLICY_HOST_RULE_INVALID', 'http.allow[1]'],
      ['POLICY_HOST_RULE_INVALID', 'http.allow[3]'],
    ]);
  });
});

describe('matchHostRule', () => {
  it.each([
    ['api.example.com', 'api.example.com', undefined, true],
    ['api.example.com', 'API.EXAMPLE.COM', undefined, true],
    ['api.example.com', 'api.example.com.', undefined, true],
    ['api.example.com.', 'api.example.com', undefined, true],
    ['api.example.com', 'example.com', undefined, false],
    ['api.example.com', 'x.api.example.com', undefined, false],
    ['api.example.com', 'api.example.com.evil.test', undefined, false],
    ['api.example.com', 'api-example.com', undefined, false],
    ['*.example.com', 'a.example.com', undefined, true],
    ['*.example.com', 'a.b.example.com', undefined, true],
    ['*.example.com', 'A.Example.Com.', undefined, true],
    ['*.example.com', 'example.com', undefined, false],
    ['*.example.com', 'example.com.', undefined, false],
    ['*.example.com', '.example.com', undefined, false],
    ['*.example.com', 'badexample.com', undefined, false],
    ['*.example.com', 'example.com.evil.test', undefined, false],
    ['api.example.com:443', 'api.example.com', 443, true],
    ['api.example.com:443', 'api.example.com', 80, false],
    ['api.example.com:443', 'api.example.com', undefined, false],
    ['api.example.com', 'api.example.com', 8080, true],
    ['*.example.com:443', 'a.example.com', 443, true],
    ['*.example.com:443', 'a.example.com', 444, false],
    ['10.0.0.5', '10.0.0.5', undefined, true],
    ['10.0.0.5', '10.0.0.6', undefined, false],
    ['10.0.0.5', '::ffff:10.0.0.5', undefined, true],
    ['10.0.0.5', '[::ffff:a00:5]', undefined, true],
    ['::ffff:10.0.0.5', '10.0.0.5', undefined, true],
    ['::1', '[::1]', undefined, true],
    ['::1', '0:0:0:0:0:0:0:1', undefined, true],
    ['[::1]:8080', '::1', 8080, true],
    ['[::1]:8080', '::1', 8081, false],
    ['10.0.0.0/8', '10.1.2.3', undefined, true],
    ['10.0.0.0/8', '11.1.2.3', undefined, false],
    ['10.0.0.0/8', '::ffff:10.1.2.3', undefined, true],
    ['10.0.0.0/8', 'ten.example.com', undefined, false],
    ['fc00::/7', 'fd00::1', undefined, true],
    ['fc00::/7', '[fd00::1]', 443, true],
    ['localhost', '127.0.0.1', undefined, false],
    ['127.0.0.1', 'localhost', undefined, false],
    ['api.example.com', '', undefined, false],
  ])('%j matches %j port %s: %s', (rule, host, port, expected) => {
    expect(matchHostRule(parseHostRule(rule), host, port)).toBe(expected);
  });
});
