import { describe, expect, it } from 'vitest';
import type { EgressPeer, EgressPolicy } from '@trust/core';
import { classifySocketError, createLookupNames, toGuestIp, withLookupNames } from './socket-broker.js';

describe('lookup names', () => {
  it.each([
    ['127.0.0.1', { tag: 'ipv4', val: [127, 0, 0, 1] }],
    ['2001:db8::1', { tag: 'ipv6', val: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1] }],
    ['not-an-ip', undefined],
  ])('toGuestIp(%s)', (text, expected) => {
    expect(toGuestIp(text)).toEqual(expected);
  });

  it('shows the policy the looked-up name for that address until the entry expires', () => {
    let now = 1000;
    const names = createLookupNames(500, 8, () => now);
    names.remember('db.example.test', ['192.0.2.7', '2001:db8::7']);
    expect(names.peerFor({ host: '192.0.2.7', port: 5432 })).toEqual({
      host: 'db.example.test',
      port: 5432,
      ip: '192.0.2.7',
    });
    // the guest may spell IPv6 in full; the canonical form is matched
    expect(names.peerFor({ host: '2001:db8:0:0:0:0:0:7', port: 5432 })).toEqual({
      host: 'db.example.test',
      port: 5432,
      ip: '2001:db8::7',
    });
    expect(names.peerFor({ host: '192.0.2.8', port: 5432 })).toEqual({ host: '192.0.2.8', port: 5432 });
    now += 500;
    expect(names.peerFor({ host: '192.0.2.7', port: 5432 })).toEqual({ host: '192.0.2.7', port: 5432 });
  });

  it('stays bounded', () => {
    const names = createLookupNames(60_000, 2);
    names.remember('a.test', ['192.0.2.1']);
    names.remember('b.test', ['192.0.2.2']);
    names.remember('c.test', ['192.0.2.3']);
    expect(names.peerFor({ host: '192.0.2.1', port: 1 }).host).toBe('192.0.2.1');
    expect(names.peerFor({ host: '192.0.2.3', port: 1 }).host).toBe('c.test');
  });

  it('wraps only the TCP/UDP methods, and keeps an absent one absent (egress denies it)', async () => {
    const seen: EgressPeer[] = [];
    const policy: EgressPolicy = {
      name: 'p',
      authorizeHttp: () => ({ allow: true, rule: 'http' }),
      authorizeTcp: (p) => {
        seen.push(p);
        return { allow: true, rule: 'tcp' };
      },
    };
    const names = createLookupNames();
    names.remember('svc.test', ['192.0.2.9']);
    const wrapped = withLookupNames(policy, names);
    expect(wrapped.name).toBe('p');
    expect(wrapped.authorizeUdp).toBeUndefined();
    await wrapped.authorizeTcp!(
      { host: '192.0.2.9', port: 80 },
      { principal: { kind: 'plugin', id: 'x' }, capability: 'tcp' },
    );
    expect(seen).toEqual([{ host: 'svc.test', port: 80, ip: '192.0.2.9' }]);
  });

  it.each([
    ['EGRESS_POLICY_DENIED', 'denied'],
    ['EGRESS_METADATA', 'denied'],
    ['EGRESS_CONNECT_FAILED', 'refused'],
    ['EGRESS_ABORTED', 'timeout'],
    ['EGRESS_DATAGRAM_TOO_LARGE', 'too-large'],
    ['ECONNRESET', 'other'],
  ])('classifies %s as %s', (code, error) => {
    expect(classifySocketError(Object.assign(new Error('x'), { code })).error).toBe(error);
  });
});
