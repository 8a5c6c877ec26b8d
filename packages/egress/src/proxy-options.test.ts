import { allowHosts, createMemoryAuditSink, createPrincipal, type TrustError } from '@trust/core';
import { describe, expect, it } from 'vitest';
import { createEgressGuard } from './guard.js';
import { createEgressProxy, type EgressProxyOptions } from './proxy.js';

// Only refusals here: they are thrown before anything listens. A valid proxy is started in
// proxy.integration.test.ts.

/** The error `createEgressProxy(options)` rejects with (fails the test when it does not). */
async function refusal(options: unknown): Promise<TrustError> {
  try {
    const proxy = await createEgressProxy(options as EgressProxyOptions);
    await proxy.close();
  } catch (e) {
    return e as TrustError;
  }
  throw new Error('createEgressProxy accepted the options');
}

const base = {
  policy: allowHosts(['api.example.com']),
  principal: createPrincipal('process', 'run-1'),
  listen: { host: '127.0.0.1', port: 0 },
};

describe('createEgressProxy options (one strict schema)', () => {
  it.each([
    [{ ...base, conectAs: 'tcp' }, 'conectAs', /did you mean "connectAs"\?/],
    [{ ...base, listen: { host: '127.0.0.1', port: 0, prot: 1 } }, 'listen.prot', /did you mean "port"\?/],
    [{ ...base, principal: { kind: 'process', id: 'a', agnet: 'x' } }, 'principal.agnet', /did you mean "agent"\?/],
    [{ ...base, udp: { announce: { host: '127.0.0.1', port: 1 }, limit: {} } }, 'udp.limit', /did you mean "limits"\?/],
  ])('%j: an unknown key is refused with "did you mean"', async (options, path, hint) => {
    const e = await refusal(options);
    expect(e).toHaveTrustCode('EGRESS_OPTIONS_INVALID');
    expect(e.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('EGRESS_OPTIONS_UNKNOWN_KEY'),
        path,
        hint: expect.stringMatching(hint),
      }),
    ]);
  });

  it.each([
    [{ ...base, listen: { host: '0.0.0.0', port: 0 } }, 'listen.host', /only on loopback/],
    [{ ...base, listen: { host: '127.0.0.1' } }, 'listen', /either \{ path \} or both \{ host, port \}/],
    [{ ...base, listen: { path: '/tmp/p.sock', port: 0 } }, 'listen', /either \{ path \} or both \{ host, port \}/],
    [{ ...base, listen: {} }, 'listen', /either \{ path \} or both \{ host, port \}/],
    [{ ...base, listen: { host: '::1', port: 70000 } }, 'listen.port', /too big|<=/i],
    [{ ...base, principal: { kind: 'root', id: 'a' } }, 'principal.kind', /Invalid option/],
    [{ ...base, principal: undefined }, 'principal', /expected object/i],
    [{ ...base, connectAs: 'udp' }, 'connectAs', /Invalid option/],
    [{ ...base, closeGraceMs: Infinity }, 'closeGraceMs', /.+/],
    [{ ...base, udp: { announce: { host: '10.0.0.1', port: 1 } } }, 'udp.announce.host', /only on loopback/],
    [
      { ...base, udp: { announce: { host: '::1', port: 1 }, limits: { maxPending: 0 } } },
      'udp.limits.maxPending',
      /.+/,
    ],
    [{ ...base, audit: { record: 'x' } }, 'audit', /record\(\)/],
  ])('%j: an invalid value is refused', async (options, path, message) => {
    const e = await refusal(options);
    expect(e).toHaveTrustCode('EGRESS_OPTIONS_INVALID');
    expect(e.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('EGRESS_OPTIONS_INVALID'),
        path,
        message: expect.stringMatching(message),
      }),
    ]);
    expect(e.problems?.[0]?.hint).toMatch(/e\.g\./);
  });

  it('checks guard options but takes a compiled guard as it is', async () => {
    const e = await refusal({ ...base, guard: { mode: 'strict', protectedPort: [1] } });
    expect(e.problems?.map((p) => [p.code, p.path])).toEqual([['EGRESS_OPTIONS_UNKNOWN_KEY', 'guard.protectedPort']]);
    const proxy = await createEgressProxy({
      ...base,
      listen: { host: '127.0.0.1', port: 0 },
      guard: createEgressGuard({ mode: 'strict' }),
      audit: createMemoryAuditSink(),
      connectAs: 'tcp',
      closeGraceMs: 0,
      udp: { announce: { host: '127.0.0.1', port: 40000 }, limits: { maxPending: 4 } },
    });
    await proxy.close();
  });
});
