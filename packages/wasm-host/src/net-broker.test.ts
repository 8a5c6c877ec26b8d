import { allowHosts, createMemoryAuditSink, createPrincipal, type TrustError } from '@trust/core';
import { describe, expect, it } from 'vitest';
import { createNetworkBroker, type BrokerOptions } from './net-broker.js';

/** The error `createNetworkBroker(options)` throws (fails the test when it does not throw). */
function refusal(options: unknown): TrustError {
  try {
    createNetworkBroker(options as BrokerOptions).close();
  } catch (e) {
    return e as TrustError;
  }
  throw new Error('createNetworkBroker accepted the options');
}

const base = { principal: createPrincipal('plugin', 'weather'), policy: allowHosts(['api.example.com']) };

describe('createNetworkBroker options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean"', () => {
    const e = refusal({ ...base, httpTimeout: 1000 });
    expect(e).toHaveTrustCode('WASM_OPTIONS_INVALID');
    expect(e.message).toMatch(/^createNetworkBroker options are invalid/);
    expect(e.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('WASM_OPTIONS_UNKNOWN_KEY'),
        path: 'httpTimeout',
        hint: expect.stringMatching(/did you mean "httpTimeoutMs"\?/),
      }),
    ]);
  });

  it.each([
    [{ policy: base.policy }, 'principal', /createPrincipal/],
    [{ ...base, policy: {} }, 'policy', /allowHosts/],
    [{ ...base, audit: { record: 1 } }, 'audit', /createMemoryAuditSink/],
    [{ ...base, guard: 'strict' }, 'guard', /mode: "strict"/],
    [{ ...base, limits: 5 }, 'limits', /maxResponseBytes/],
    [{ ...base, httpTimeoutMs: 0 }, 'httpTimeoutMs', /e\.g\. 30000/],
    [{ ...base, httpTimeoutMs: 2 ** 31 }, 'httpTimeoutMs', /e\.g\. 30000/],
  ])('%j: an invalid value is refused with a valid example', (options, path, hint) => {
    const e = refusal(options);
    expect(e.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('WASM_OPTIONS_INVALID'),
        path,
        hint: expect.stringMatching(hint),
      }),
    ]);
  });

  it('hands guard options and limits to @trust/egress, whose strict check refuses a misspelt key', () => {
    const e = refusal({ ...base, guard: { mdoe: 'strict' } });
    expect(e).toHaveTrustCode('EGRESS_OPTIONS_INVALID');
    expect(e.problems?.map((p) => [p.code, p.path])).toEqual([['EGRESS_OPTIONS_UNKNOWN_KEY', 'guard.mdoe']]);
  });

  it('passes valid options', () => {
    const broker = createNetworkBroker({
      ...base,
      guard: { mode: 'strict' },
      audit: createMemoryAuditSink(),
      limits: { maxResponseBytes: 1024 },
      httpTimeoutMs: 1000,
    });
    expect(typeof broker.handle).toBe('function');
    broker.close();
  });
});
