import { allowHosts, createMemoryAuditSink, createPrincipal } from '@trust/core';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createNetworkBroker, type BrokerOptions } from './net-broker.js';

/** The error `createNetworkBroker(options)` throws (fails the test when it does not throw). */
const refusal = (options: unknown) => thrownBy(() => createNetworkBroker(options as BrokerOptions).close());

const base = { principal: createPrincipal('plugin', 'weather'), policy: allowHosts(['api.example.com']) };

describe('createNetworkBroker options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean"', () => {
    expect(refusal({ ...base, httpTimeout: 1000 })).toRefuseOptions(
      'WASM_OPTIONS_INVALID',
      [{ code: 'WASM_OPTIONS_UNKNOWN_KEY', path: 'httpTimeout', hint: /did you mean "httpTimeoutMs"\?/ }],
      /^createNetworkBroker options are invalid/,
    );
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
    expect(refusal(options)).toRefuseOptions('WASM_OPTIONS_INVALID', [{ code: 'WASM_OPTIONS_INVALID', path, hint }]);
  });

  it('hands guard options and limits to @trust/egress, whose strict check refuses a misspelt key', () => {
    expect(refusal({ ...base, guard: { mdoe: 'strict' } })).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
      { code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'guard.mdoe' },
    ]);
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
