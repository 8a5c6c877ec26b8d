import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditInput } from './audit-event.js';
import { GENESIS_HASH, computeEventHash, sealEvent, verifyChain } from './audit-chain.js';
import { auditDecision, createMemoryAuditSink } from './audit-sink.js';
import { canonicalJson } from './canonical-json.js';
import { allow, deny } from './decision.js';
import { createPrincipal } from './principal.js';
import { sha256Hex } from './sha256.js';

const principal = createPrincipal('plugin', 'weather', 'agent-1');
const input = (n: number): AuditInput => ({
  principal,
  action: 'egress.http',
  target: `https://api.example.com/${n}`,
  decision: n % 2 === 0 ? 'allow' : 'deny',
  ...(n % 2 === 0 ? { rule: 'allow-hosts' } : { code: 'EGRESS_HOST_NOT_ALLOWED' }),
  details: { n },
});

function makeChain(count: number): AuditEvent[] {
  let t = Date.parse('2026-01-01T00:00:00Z');
  const sink = createMemoryAuditSink({
    clock: () => {
      t += 1000;
      return new Date(t);
    },
  });
  for (let i = 0; i < count; i++) sink.record(input(i));
  return [...sink.events()];
}

describe('sealEvent', () => {
  it('seals v, time, prev and a hash over everything else', () => {
    const e = sealEvent(input(0), GENESIS_HASH, '2026-01-01T00:00:00.000Z');
    expect(e).toMatchObject({
      v: 1,
      time: '2026-01-01T00:00:00.000Z',
      prev: GENESIS_HASH,
      decision: 'allow',
      rule: 'allow-hosts',
    });
    const { hash, ...rest } = e;
    expect(hash).toBe(sha256Hex(canonicalJson(rest)));
    expect(computeEventHash(e)).toBe(hash);
    expect(Object.isFrozen(e)).toBe(true);
    expect('code' in e).toBe(false);
  });

  it('survives a JSON round trip', () => {
    const chain = makeChain(3);
    expect(verifyChain(JSON.parse(JSON.stringify(chain)))).toEqual({ ok: true, count: 3, head: chain[2]?.hash });
  });

  it('GENESIS_HASH is 64 zeros', () => {
    expect(GENESIS_HASH).toMatch(/^0{64}$/);
  });
});

describe('verifyChain: tamper detection names the first broken link', () => {
  const chain = makeChain(5);
  const edit = (i: number, patch: Partial<Record<keyof AuditEvent, unknown>>): AuditEvent[] =>
    chain.map((e, j) => (j === i ? ({ ...e, ...patch } as AuditEvent) : e));
  const rehash = (e: AuditEvent): AuditEvent => ({ ...e, hash: computeEventHash(e) });

  it.each([
    ['intact', chain, undefined, undefined],
    ['empty', [], undefined, undefined],
    ['edit decision of #2', edit(2, { decision: 'deny' }), 2, 'AUDIT_HASH_MISMATCH'],
    ['edit target of #0', edit(0, { target: 'x' }), 0, 'AUDIT_HASH_MISMATCH'],
    ['edit details of #4', edit(4, { details: { n: 99 } }), 4, 'AUDIT_HASH_MISMATCH'],
    [
      'edit and rehash #1',
      chain.map((e, j) => (j === 1 ? rehash({ ...e, target: 'x' }) : e)),
      2,
      'AUDIT_PREV_MISMATCH',
    ],
    ['delete #2', chain.filter((_, j) => j !== 2), 2, 'AUDIT_PREV_MISMATCH'],
    ['delete #0', chain.slice(1), 0, 'AUDIT_PREV_MISMATCH'],
    ['reorder #1 and #2', [chain[0], chain[2], chain[1], chain[3], chain[4]], 1, 'AUDIT_PREV_MISMATCH'],
    [
      'insert a forged event at #3',
      [...chain.slice(0, 3), sealEvent(input(9), chain[2]!.hash, 't'), ...chain.slice(3)],
      4,
      'AUDIT_PREV_MISMATCH',
    ],
    ['insert a copy at #1', [chain[0], chain[0], ...chain.slice(1)], 1, 'AUDIT_PREV_MISMATCH'],
    ['wrong version #3', edit(3, { v: 2 }), 3, 'AUDIT_VERSION'],
    ['missing hash #1', edit(1, { hash: undefined }), 1, 'AUDIT_MALFORMED'],
    ['bad principal #1', edit(1, { principal: { kind: 'root', id: 'x' } }), 1, 'AUDIT_MALFORMED'],
    ['bad decision #1', edit(1, { decision: 'maybe' }), 1, 'AUDIT_MALFORMED'],
    ['not an object #2', chain.map((e, j) => (j === 2 ? (null as unknown as AuditEvent) : e)), 2, 'AUDIT_MALFORMED'],
    ['uppercase hash #0', edit(0, { hash: chain[0]!.hash.toUpperCase() }), 0, 'AUDIT_MALFORMED'],
    ['non-canonicalisable details #1', edit(1, { details: { n: NaN } }), 1, 'AUDIT_MALFORMED'],
  ] as const)('%s', (_label, events, index, code) => {
    const verdict = verifyChain(events as readonly AuditEvent[]);
    if (index === undefined) {
      expect(verdict).toEqual({ ok: true, count: events.length, head: events.length ? chain[4]?.hash : GENESIS_HASH });
    } else {
      expect(verdict).toMatchObject({ ok: false, index, code });
      if (!verdict.ok) expect(verdict.reason).toContain(`event ${index}`);
    }
  });

  it('continues from a given head', () => {
    expect(verifyChain(chain.slice(2), { head: chain[1]!.hash })).toMatchObject({ ok: true, count: 3 });
  });
});

describe('createMemoryAuditSink', () => {
  it('chains events, uses the clock and continues from a head', () => {
    const sink = createMemoryAuditSink({ clock: () => new Date('2026-02-03T04:05:06Z'), head: 'a'.repeat(64) });
    const e = sink.record(input(0));
    expect(e.prev).toBe('a'.repeat(64));
    expect(e.time).toBe('2026-02-03T04:05:06.000Z');
    expect(sink.head()).toBe(e.hash);
    expect(sink.events()).toEqual([e]);
    expect(Object.isFrozen(sink.events())).toBe(true);
  });

  it('keeps instances independent', () => {
    const a = createMemoryAuditSink();
    const b = createMemoryAuditSink();
    a.record(input(0));
    expect(b.events()).toEqual([]);
    expect(b.head()).toBe(GENESIS_HASH);
  });
});

describe('auditDecision', () => {
  it('maps an allow', () => {
    const sink = createMemoryAuditSink();
    const e = auditDecision(sink, { principal, action: 'egress.http', target: 't', decision: allow('r1') });
    expect(e).toMatchObject({ decision: 'allow', rule: 'r1' });
    expect('code' in e).toBe(false);
    expect('details' in e).toBe(false);
  });

  it('maps a deny with code, rule and reason', () => {
    const sink = createMemoryAuditSink();
    const e = auditDecision(sink, {
      principal,
      action: 'egress.http',
      target: 't',
      decision: deny('EGRESS_HOST_DENIED', 'because', { rule: 'r2' }),
      details: { k: 1 },
    });
    expect(e).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('EGRESS_HOST_DENIED'),
      rule: 'r2',
      details: { k: 1, reason: 'because' },
    });
    expect(verifyChain(sink.events()).ok).toBe(true);
  });
});
