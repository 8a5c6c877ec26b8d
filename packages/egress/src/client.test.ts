import { allowHosts, createMemoryAuditSink } from '@trust/core';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createEgressClient, type EgressClientOptions } from './client.js';
import { createEgressGuard } from './guard.js';

/** The error `createEgressClient(options)` throws (fails the test when it does not throw). */
const refusal = (options: unknown) => thrownBy(() => createEgressClient(options as EgressClientOptions));

const policy = allowHosts(['api.example.com']);

describe('createEgressClient options (one strict schema)', () => {
  it.each([
    [{ policy, gaurd: { mode: 'strict' } }, 'gaurd', /did you mean "guard"\?/],
    [{ policy, guard: { mdoe: 'strict' } }, 'guard.mdoe', /did you mean "mode"\?/],
    [{ policy, limits: { totalTimeout: 5 } }, 'limits.totalTimeout', /did you mean "totalTimeoutMs"\?/],
    [{ policy, closeGrace: 5 }, 'closeGrace', /did you mean "closeGraceMs"\?/],
  ])('%j: an unknown key is refused with "did you mean"', (options, path, hint) => {
    expect(refusal(options)).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
      { code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path, hint },
    ]);
  });

  it.each([
    [{}, 'policy', /allowHosts/],
    [{ policy: { name: 'p' } }, 'policy', /allowHosts/],
    [{ policy, audit: {} }, 'audit', /createMemoryAuditSink/],
    [{ policy, now: 1 }, 'now', /Date\.now/],
    [{ policy, allowDowngrade: 'yes' }, 'allowDowngrade', /false/],
    [{ policy, closeGraceMs: -1 }, 'closeGraceMs', /e\.g\. 1000/],
    [{ policy, limits: { headersTimeoutMs: 0 } }, 'limits.headersTimeoutMs', /e\.g\. 30000/],
    [{ policy, limits: { maxRedirects: 1.5 } }, 'limits.maxRedirects', /e\.g\. 5/],
    [{ policy, limits: { maxResponseBytes: Infinity } }, 'limits.maxResponseBytes', /10485760/],
    [{ policy, guard: { protectedPorts: [70000] } }, 'guard.protectedPorts.0', /7385/],
  ])('%j: an invalid value is refused with a valid example', (options, path, hint) => {
    expect(refusal(options)).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
      { code: 'EGRESS_OPTIONS_INVALID', path, hint },
    ]);
  });

  it('refuses missing options', () => {
    expect(() => createEgressClient(undefined as never)).toThrowTrustError('EGRESS_OPTIONS_INVALID');
  });

  it('lists every problem at once', () => {
    const options = { policy: {}, guard: { mode: 'x' }, limits: { maxRedirect: 1 }, closeGraceMs: Number.NaN };
    expect(refusal(options)).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
      { code: 'EGRESS_OPTIONS_INVALID', path: 'closeGraceMs' },
      { code: 'EGRESS_OPTIONS_INVALID', path: 'guard.mode' },
      { code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'limits.maxRedirect' },
      { code: 'EGRESS_OPTIONS_INVALID', path: 'policy' },
    ]);
  });

  it('passes valid options unchanged: an injected guard keeps its identity', async () => {
    const guard = createEgressGuard({ mode: 'strict' });
    const client = createEgressClient({
      policy,
      guard,
      audit: createMemoryAuditSink(),
      limits: { maxRedirects: 0, totalTimeoutMs: 1000 },
      allowDowngrade: false,
      now: Date.now,
      closeGraceMs: 0,
    });
    expect(client.guard).toBe(guard);
    await client.close();
    const fromOptions = createEgressClient({ policy, guard: { mode: 'allow-local', protectedPorts: [7385] } });
    expect(fromOptions.guard.mode).toBe('allow-local');
    await fromOptions.close();
  });
});
