import { allowHosts, createMemoryAuditSink } from '@trust/core';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createPluginHost } from './plugin-host.js';
import { resolvePluginHostOptions, type PluginHostOptions } from './plugin-host-options.js';
import { generateSigningKey } from './signing.js';

/** The error `createPluginHost(options)` throws (fails the test when it does not throw). */
const refusal = (options: unknown) => thrownBy(() => createPluginHost(options as PluginHostOptions));

describe('createPluginHost options', () => {
  it('applies the documented defaults', () => {
    const r = resolvePluginHostOptions({});
    expect(r.requireSignature).toBe(true);
    expect(r.trustedKeys).toEqual([]);
    expect(r.isolation).toBe('worker');
    expect(r.env).toBe(process.env);
    expect(r.limits).toEqual({
      callTimeoutMs: 5000,
      maxMemoryBytes: 256 * 1024 * 1024,
      maxHeapMb: 128,
      httpTimeoutMs: 30_000,
      maxOutputBytes: 64 * 1024,
      maxCallBytes: 4 * 1024 * 1024,
      maxHttpResponseBytes: 10 * 1024 * 1024,
      maxHttpRequestBytes: 16 * 1024 * 1024,
      syncWaitMs: 0,
      package: { maxEntries: 10_000, maxTotalBytes: 256 * 1024 * 1024, maxRatio: 50 },
    });
    expect(Object.isFrozen(r) && Object.isFrozen(r.limits)).toBe(true);
  });

  it('takes process.env itself as the env source (not a plain object to a record schema)', () => {
    expect(resolvePluginHostOptions({ env: process.env }).env).toBe(process.env);
  });

  it('keeps given values and the very objects it was handed', () => {
    const { publicKey } = generateSigningKey();
    const egress = allowHosts(['api.example.com']);
    const audit = createMemoryAuditSink();
    const env = { A: 'a' };
    const r = resolvePluginHostOptions({
      egress,
      audit,
      env,
      trustedKeys: [publicKey],
      requireSignature: false,
      isolation: 'in-thread',
      cacheDir: 'c',
      limits: { syncWaitMs: 0.2, package: { maxEntries: 5, maxRatio: undefined } },
    });
    expect(r.egress).toBe(egress);
    expect(r.audit).toBe(audit);
    expect(r.env).toBe(env);
    expect(r.trustedKeys[0]).toBe(publicKey);
    expect([r.requireSignature, r.isolation, r.cacheDir, r.limits.syncWaitMs]).toEqual([false, 'in-thread', 'c', 0.2]);
    // an undefined field takes its default instead of erasing it
    expect(r.limits.package).toEqual({ maxEntries: 5, maxTotalBytes: 256 * 1024 * 1024, maxRatio: 50 });
  });

  it.each([
    ['a misspelt option', { trustedkeys: [] }, 'trustedkeys', 'did you mean "trustedKeys"?'],
    ['a misspelt limit', { limits: { callTimeout: 100 } }, 'limits.callTimeout', 'did you mean "callTimeoutMs"?'],
    [
      'a misspelt package limit',
      { limits: { package: { maxEntires: 1 } } },
      'limits.package.maxEntires',
      'did you mean "maxEntries"?',
    ],
    ['an option with no near name', { sandbox: true }, 'sandbox', 'remove it; known options: egress, guard'],
  ])('rejects %s with WASM_OPTIONS_UNKNOWN_KEY and a hint', (_name, options, path, hint) => {
    expect(refusal(options)).toRefuseOptions('WASM_OPTIONS_INVALID', [
      { code: 'WASM_OPTIONS_UNKNOWN_KEY', path, hint },
    ]);
  });

  it.each([
    ['maxOutputBytes 0 (slice(-0) would keep all output)', { limits: { maxOutputBytes: 0 } }, 'limits.maxOutputBytes'],
    ['a NaN call timeout', { limits: { callTimeoutMs: Number.NaN } }, 'limits.callTimeoutMs'],
    [
      'a call timeout past what a Node timer keeps (it would fire at once)',
      { limits: { callTimeoutMs: 3_000_000_000 } },
      'limits.callTimeoutMs',
    ],
    ['a negative HTTP timeout', { limits: { httpTimeoutMs: -1 } }, 'limits.httpTimeoutMs'],
    ['a fractional byte count', { limits: { maxMemoryBytes: 1.5 } }, 'limits.maxMemoryBytes'],
    ['an infinite heap', { limits: { maxHeapMb: Number.POSITIVE_INFINITY } }, 'limits.maxHeapMb'],
    ['a negative sync wait', { limits: { syncWaitMs: -1 } }, 'limits.syncWaitMs'],
    ['a string limit', { limits: { maxCallBytes: '4MiB' } }, 'limits.maxCallBytes'],
    ['a zero package entry cap', { limits: { package: { maxEntries: 0 } } }, 'limits.package.maxEntries'],
    ['an unknown isolation', { isolation: 'process' }, 'isolation'],
    ['an empty cache directory', { cacheDir: '' }, 'cacheDir'],
    ['requireSignature as a string', { requireSignature: 'false' }, 'requireSignature'],
    ['an egress policy without authorizeHttp', { egress: { name: 'x' } }, 'egress'],
    ['an audit sink without record', { audit: {} }, 'audit'],
    ['a non-string env value', { env: { A: 1 } }, 'env.A'],
    ['limits that are not an object', { limits: 5 }, 'limits'],
  ])('rejects %s with WASM_OPTIONS_INVALID naming the field', (_name, options, path) => {
    expect(refusal(options)).toRefuseOptions('WASM_OPTIONS_INVALID', [{ code: 'WASM_OPTIONS_INVALID', path }], path);
  });

  it('refuses a private key among the trusted keys', () => {
    const { privateKey } = generateSigningKey();
    expect(refusal({ trustedKeys: [privateKey] })).toRefuseOptions('WASM_OPTIONS_INVALID', [
      { code: 'WASM_OPTIONS_INVALID', path: 'trustedKeys.0', message: 'never pass the private key' },
    ]);
  });

  it('reports every problem at once, each field with a valid example', () => {
    expect(refusal({ limits: { maxOutputBytes: 0, callTimeot: 5 }, isolation: 'vm' })).toRefuseOptions(
      'WASM_OPTIONS_INVALID',
      [
        { code: 'WASM_OPTIONS_INVALID', path: 'isolation' },
        { code: 'WASM_OPTIONS_UNKNOWN_KEY', path: 'limits.callTimeot' },
        { code: 'WASM_OPTIONS_INVALID', path: 'limits.maxOutputBytes', hint: 'e.g. 65536' },
      ],
    );
  });
});
