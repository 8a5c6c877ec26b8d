import { describe, expect, it } from 'vitest';
import { buildAuditTimeline, type AuditLogView } from './audit-timeline.js';
import type { ControlAgents } from './agent-registry.js';

const none: ControlAgents = { list: () => [], open: () => Promise.reject(new Error('no agents')) };
const deny = (id: string, policy: unknown, time: string) => ({
  time,
  principal: { kind: 'process' as const, id },
  action: 'egress.connect',
  target: 'http://x.example/',
  decision: 'deny' as const,
  rule: 'p:http.allow',
  details: { policy },
});

describe('audit timeline: the policies its rows name', () => {
  it("returns each named policy from the row's own log, only for rows it returns", async () => {
    const runs: AuditLogView = {
      name: 'sandbox-runs',
      kind: 'sandbox',
      chain: null,
      events: [
        deny('a', 'k1', '2026-01-01T00:00:01Z'),
        deny('b', 'k2', '2026-01-01T00:00:00Z'),
        deny('c', null, '2026-01-01T00:00:02Z'),
      ],
      policies: { k1: { v: 1, http: { allow: ['a.example'] } }, k2: { v: 1 }, unused: { v: 1 } },
    };
    // Another log naming the same key never gets this log's policy.
    const other: AuditLogView = {
      name: 'control-edge',
      kind: 'control',
      chain: { ok: true, count: 1 },
      events: [deny('d', 'k1', '2026-01-01T00:00:03Z')],
    };
    const all = await buildAuditTimeline(none, [runs, other]);
    expect(all.policies).toEqual({
      'sandbox-runs k1': { v: 1, http: { allow: ['a.example'] } },
      'sandbox-runs k2': { v: 1 },
    });
    // Cut to the newest 2 rows (d, c): neither names a policy of its log.
    expect((await buildAuditTimeline(none, [runs, other], 2)).policies).toEqual({});
    expect((await buildAuditTimeline(none, [runs, other], 3)).policies).toEqual({
      'sandbox-runs k1': { v: 1, http: { allow: ['a.example'] } },
    });
  });
});
