import { allowHosts, createMemoryAuditSink, createPrincipal } from '@trust/core';
import { rejectionOf } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createEgressGuard } from './guard.js';
import { createEgressProxy, type EgressProxyOptions } from './proxy.js';

// Only refusals here: they are thrown before anything listens. A valid proxy is started in
// proxy.integration.test.ts.

/** The error `createEgressProxy(options)` rejects with (fails the test when it does not). */
const refusal = (options: unknown) =>
  rejectionOf(async () => (await createEgressProxy(options as EgressProxyOptions)).close());

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
    expect(await refusal(options)).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
      { code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path, hint },
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
    expect(await refusal(options)).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
      { code: 'EGRESS_OPTIONS_INVALID', path, message, hint: /e\.g\./ },
    ]);
  });

  it('checks guard options but takes a compiled guard as it is', async () => {
    expect(await refusal({ ...base, guard: { mode: 'strict', protectedPort: [1] } })).toRefuseOptions(
      'EGRESS_OPTIONS_INVALID',
      [{ code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'guard.protectedPort' }],
    );
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
