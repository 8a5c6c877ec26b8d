// Regression tests for defects found by the attack corpus (tests/attacks): each is named after
// the bypass it pins.
import { describe, expect, it } from 'vitest';
import { allow, type Decision } from './decision.js';
import type { EgressPolicy } from './egress-policy.js';
import { chain } from './policy-chain.js';
import { allowHosts } from './policy-hosts.js';
import { parseCapabilities } from './capability-parse.js';
import { createMemoryAuditSink } from './audit-sink.js';
import { verifyChain } from './audit-chain.js';
import { createTestContext, createTestRequest, thrownBy } from './testing/index.js';

import type { Deny } from './decision.js';
// A policy's own deny code, which the type system does not know: JS policies may return one.
type OwnCode = Deny['code'];

const request = () => createTestRequest('https://api.example.com/x');
const ctx = createTestContext();

describe('fs grants with hidden meaning are refused', () => {
  it.each(['fs:ro:/data/../etc', 'fs:rw:/srv/app/..', 'fs:ro:/data\n', 'fs:ro:/data\t/x', 'fs:rw:/a\u001b[31m'])(
    '%j',
    (entry) => {
      const e = thrownBy(() => parseCapabilities([entry]));
      expect(e.code).toBeTrustCode('CAPABILITY_INVALID');
      expect(e.problems[0]?.code).toBeTrustCode('CAPABILITY_FS_PATH');
    },
  );

  it('still accepts a plain absolute path with dots in names', () => {
    expect(parseCapabilities(['fs:ro:/data/..hidden/v1.2']).fsGrants).toEqual([
      { mode: 'ro', path: '/data/..hidden/v1.2' },
    ]);
  });
});

describe('chain fails closed on malformed members', () => {
  const filterDeny: EgressPolicy = {
    name: 'misspelt',
    role: 'Filter' as 'filter',
    authorizeHttp: () => ({ allow: false, code: 'X' as OwnCode, reason: 'no' }),
  };

  it('refuses a policy with an unknown role, so a misspelt filter cannot lose its veto', () => {
    expect(() => chain(allowHosts(['api.example.com']), filterDeny)).toThrowTrustError('POLICY_INVALID');
  });

  it.each([
    ['a string allow', { allow: 'false' }],
    ['null', null],
    ['undefined', undefined],
    ['a deny without code', { allow: false }],
    ['a number', 1],
  ])('treats %s as a deny that stops the chain', (_n, answer) => {
    const odd: EgressPolicy = { name: 'odd', authorizeHttp: () => answer as unknown as Decision };
    const d = chain(odd, allowHosts(['api.example.com'])).authorizeHttp(request(), ctx) as Decision;
    expect(d).toBeDenied('EGRESS_POLICY_INVALID');
  });

  it('applies the same rule to async answers', async () => {
    const odd: EgressPolicy = { name: 'odd', authorizeHttp: async () => ({ allow: 'yes' }) as unknown as Decision };
    const d = await chain(allowHosts(['other.example.com']), odd).authorizeHttp(request(), ctx);
    expect(d).toBeDenied('EGRESS_POLICY_INVALID');
  });

  it('still allows through a well-formed gate', () => {
    const gate: EgressPolicy = { name: 'ok', authorizeHttp: () => allow('ok') };
    expect(chain(gate).authorizeHttp(request(), ctx)).toBeAllowed();
  });
});

describe('audit chain anchored at its tail', () => {
  function sink(n: number) {
    const s = createMemoryAuditSink({ clock: () => new Date('2026-01-01T00:00:00Z') });
    for (let i = 0; i < n; i++)
      s.record({ principal: { kind: 'owner', id: 'o' }, action: 'test', target: `t${i}`, decision: 'allow' });
    return s.events();
  }

  it('detects a truncated tail when the anchored tail hash is given', () => {
    const events = sink(4);
    const tail = events[3]!.hash;
    expect(verifyChain(events.slice(0, 3))).toMatchObject({ ok: true });
    expect(verifyChain(events.slice(0, 3), { tail })).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('AUDIT_TAIL_MISMATCH'),
      index: 3,
    });
    expect(verifyChain(events, { tail })).toMatchObject({ ok: true, count: 4, head: tail });
  });
});
