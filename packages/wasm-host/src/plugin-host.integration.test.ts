import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { rejectionOf } from '@trust/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditInput } from '@trust/core';
import { denyAllPolicy, fixture, manifestToml, tempDir, writePackage } from '../test/helpers.js';
import { describeComponent } from './component-info.js';
import { readPackageDir } from './package-files.js';
import { hasJspi } from './jspi.js';
import { createPluginHost } from './plugin-host.js';
import { generateSigningKey, signPackage } from './signing.js';

const tmp = tempDir();
const cacheDir = join(tmp.dir, 'cache');
const hosts: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  tmp.cleanup();
});

function memoryAudit() {
  const events: AuditInput[] = [];
  return {
    events,
    record: (e: AuditInput) => {
      events.push(e);
      return e as AuditEvent;
    },
  };
}

function host(opts: Parameters<typeof createPluginHost>[0] = {}) {
  const h = createPluginHost({
    requireSignature: false,
    cacheDir,
    env: { TRUST_A: 'a-value', TRUST_B: 'b-value' },
    ...opts,
  });
  hosts.push(h);
  return h;
}

describe('plugin host with the WAT fixture (worker threads)', () => {
  it('calls exports and serves only granted env vars', async () => {
    const h = host();
    const granted = await h.load(fixture('tiny'), { grants: ['env:TRUST_A'] });
    const none = await h.load(fixture('tiny'));
    const unset = await h.load(fixture('tiny'), { grants: ['env:TRUST_UNSET'] });
    expect(await granted.call('add', 2, 3)).toBe(5);
    expect(await granted.call('echo', 'héllo')).toBe('héllo');
    expect(await granted.call('env-count')).toBe(1);
    expect(await none.call('envCount')).toBe(0);
    expect(await unset.call('env-count')).toBe(0);
  });

  it('keeps concurrent calls in order across both encodings and the fast and slow paths', async () => {
    for (const syncWaitMs of [0, 5]) {
      const p = await host({ limits: { syncWaitMs } }).load(fixture('tiny'));
      const calls = Array.from({ length: 40 }, (_, i) =>
        i % 3 === 0 ? p.call('echo', `s${i}`) : i % 3 === 1 ? p.call('add', i, 1) : p.call('noop'),
      );
      const results = await Promise.all(calls);
      expect(results).toEqual(
        Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? `s${i}` : i % 3 === 1 ? i + 1 : undefined)),
      );
      // a typed-array argument goes through structured clone; jco rejects it for a string param
      await expect(p.call('echo', new Uint8Array([1]))).rejects.toHaveTrustCode('WASM_TRAP');
    }
  });

  it('returns an answer larger than the call buffer as a message', async () => {
    // the request {"name":"echo","args":[s]} fits; the answer {"ok":true,"value":s,"output":[]} does not
    const s = 'x'.repeat(200);
    const requestBytes = JSON.stringify({ name: 'echo', args: [s] }).length;
    const p = await host({ limits: { maxCallBytes: requestBytes + 2 } }).load(fixture('tiny'));
    // regression: the next request, posted as soon as the message arrives, was overwritten by
    // the worker's late state update, and the call hung until its deadline
    for (let i = 0; i < 30; i++) {
      expect(await p.call('echo', s)).toBe(s);
      expect(await p.call('add', i, 2)).toBe(i + 2);
    }
    await expect(p.call('echo', s + 'yyyy')).rejects.toHaveTrustCode('WASM_EXPORT_UNKNOWN');
  });

  it('rejects unknown, bare and conflicting capabilities at load', async () => {
    const h = host();
    await expect(h.load(fixture('tiny'), { grants: ['gpu'] })).rejects.toThrowTrustError('WASM_CAPABILITY_UNKNOWN');
    await expect(h.load(fixture('tiny'), { grants: ['env'] })).rejects.toThrowTrustError('WASM_CAPABILITY_INVALID');
    await expect(h.load(fixture('tiny'), { grants: ['fs'] })).rejects.toThrowTrustError('WASM_CAPABILITY_INVALID');
    await expect(h.load(fixture('tiny'), { grants: ['tcp', 'network'] })).rejects.toThrowTrustError(
      'WASM_CAPABILITY_INVALID',
    );
    const dir = writePackage(join(tmp.dir, 'unknown-cap'), manifestToml(['gpu']), { 'tiny.wasm': fixture('tiny') });
    await expect(h.load(dir)).rejects.toThrowTrustError('WASM_CAPABILITY_UNKNOWN');
  });

  it('fails closed: network capabilities without a host egress policy, and imports no grant provides', async () => {
    const h = host();
    await expect(h.load(fixture('tiny'), { grants: ['http', 'tcp'] })).rejects.toMatchObject({
      code: expect.toBeTrustCode('WASM_EGRESS_POLICY_MISSING'),
      message: expect.stringContaining('http, tcp'),
    });
    // WASI present, zero grants: the probe imports wasi:http and wasi:sockets and loads without
    // any grant; each call fails as denied (probe.integration.test.ts calls them)
    const withPolicy = host({ egress: denyAllPolicy });
    const p = await withPolicy.load(fixture('probe'), { grants: [] });
    expect(await p.call('run', 'fetch', 'http://127.0.0.1:9/')).toMatch(/^ERROR: /);
    expect(await p.call('run', 'tcp', '127.0.0.1:9\nping')).toBe('ERROR: access-denied');
  });

  it('refuses a component whose interface differs, naming the functions', async () => {
    const h = host();
    const expected = (await describeComponent(fixture('tiny'))).interface;
    await expect(h.load(fixture('tiny'), { interface: expected })).resolves.toMatchObject({
      digest: expect.any(String),
    });
    const err = await rejectionOf(() => h.load(fixture('mini'), { interface: expected }));
    expect(err.code).toBeTrustCode('WASM_INTERFACE_MISMATCH');
    expect(err.message).toMatch(/changed add/);
    expect(err.message).toMatch(/missing echo/);
    await expect(h.load(fixture('mini'), { interface: expected.hash })).rejects.toThrowTrustError(
      'WASM_INTERFACE_MISMATCH',
    );
  });

  it('requires a trusted signature by default and loads the verified bytes', async () => {
    const { privateKey, publicKey } = generateSigningKey();
    const other = generateSigningKey();
    const dir = writePackage(join(tmp.dir, 'signed'), manifestToml(['env:TRUST_B']), { 'tiny.wasm': fixture('tiny') });
    const strict = createPluginHost({ trustedKeys: [publicKey], env: { TRUST_B: 'x' } });
    hosts.push(strict);
    await expect(strict.load(dir)).rejects.toThrowTrustError('WASM_UNSIGNED');
    await expect(strict.load(fixture('tiny'))).rejects.toThrowTrustError('WASM_UNSIGNED');
    const signed = signPackage(await readPackageDir(dir), privateKey).package;
    const plugin = await strict.load(signed);
    expect(plugin.signer?.keyId).toBe(publicKey.keyId);
    expect(await plugin.call('env-count')).toBe(1);
    await expect(
      strict.load(signPackage(await readPackageDir(dir), other.privateKey).package),
    ).rejects.toThrowTrustError('WASM_KEY_UNTRUSTED');
    const tampered = new Map(signed.files);
    tampered.set('package.toml', new TextEncoder().encode(manifestToml(['env:TRUST_B', 'env:TRUST_A'])));
    await expect(strict.load({ ...signed, files: tampered })).rejects.toThrowTrustError('WASM_SIGNATURE_INVALID');
  });

  it('kills a spinning guest at its deadline while the host stays responsive; other plugins carry on', async () => {
    const h = host({ limits: { callTimeoutMs: 300 } });
    const spinner = await h.load(fixture('tiny'));
    const bystander = await h.load(fixture('tiny'));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const err = await rejectionOf(() => spinner.call('spin'));
    clearInterval(timer);
    expect(err.code).toBeTrustCode('WASM_TIMEOUT');
    expect(ticks).toBeGreaterThan(0);
    expect(spinner.dead?.code).toBeTrustCode('WASM_TIMEOUT');
    await expect(spinner.call('noop')).rejects.toThrowTrustError('WASM_PLUGIN_DEAD');
    expect(await bystander.call('add', 1, 1)).toBe(2);
  });

  it('turns traps, guest exit and memory growth into typed errors and dead plugins', async () => {
    const h = host({ limits: { maxMemoryBytes: 2 * 1024 * 1024 } });
    const trapper = await h.load(fixture('tiny'));
    await expect(trapper.call('boom')).rejects.toThrowTrustError('WASM_TRAP');
    await expect(trapper.call('noop')).rejects.toThrowTrustError('WASM_PLUGIN_DEAD');
    const leaver = await h.load(fixture('tiny'));
    await expect(leaver.call('leave')).rejects.toMatchObject({
      code: expect.toBeTrustCode('WASM_EXIT'),
      message: expect.stringContaining('code 1'),
    });
    const grower = await h.load(fixture('tiny'));
    expect(await grower.call('grow', 1)).toBe(1);
    await expect(grower.call('grow', 64)).rejects.toThrowTrustError('WASM_MEMORY_LIMIT');
    await expect((await h.load(fixture('tiny'))).call('nope')).rejects.toThrowTrustError('WASM_EXPORT_UNKNOWN');
  });

  it('calls only the component own exports, never inherited or function properties', async () => {
    for (const isolation of ['worker', 'in-thread'] as const) {
      const p = await host({ isolation }).load(fixture('tiny'));
      const probes = ['constructor', '__proto__', 'toString', 'noop.constructor', 'noop.call', 'noop.bind'];
      for (const name of probes) {
        await expect(p.call(name, 'globalThis.__pwned = 1')).rejects.toThrowTrustError('WASM_EXPORT_UNKNOWN');
      }
      expect((globalThis as { __pwned?: unknown }).__pwned).toBeUndefined();
      await expect(p.call('noop')).resolves.toBeUndefined();
    }
  });

  it('runs in-thread too, with network there only as far as the runtime allows', async () => {
    const h = host({ isolation: 'in-thread', egress: denyAllPolicy });
    const p = await h.load(fixture('tiny'), { grants: ['env:TRUST_A'] });
    expect(await p.call('env-count')).toBe(1);
    await expect(p.call('leave')).rejects.toThrowTrustError('WASM_EXIT');
    // http in-thread needs JSPI (Node 24+, see in-thread-http.integration.test.ts); sockets never run in-thread
    const http = h.load(fixture('tiny'), { grants: ['http'] });
    if (hasJspi()) expect((await http).capabilities).toEqual(['http']);
    else await expect(http).rejects.toThrowTrustError('WASM_ISOLATION_REQUIRED');
    await expect(h.load(fixture('tiny'), { grants: ['tcp'] })).rejects.toThrowTrustError('WASM_ISOLATION_REQUIRED');
  });

  it('serves the manifest args only with the args capability, never the host argv', async () => {
    const h = host();
    const withArgs = writePackage(join(tmp.dir, 'args'), manifestToml(['args'], 'args = ["--one", "--two"]\n'), {
      'tiny.wasm': fixture('tiny'),
    });
    const without = writePackage(join(tmp.dir, 'noargs'), manifestToml([], 'args = ["--one", "--two"]\n'), {
      'tiny.wasm': fixture('tiny'),
    });
    expect(await (await h.load(withArgs)).call('arg-count')).toBe(2);
    expect(await (await h.load(without)).call('arg-count')).toBe(0);
    expect(await (await h.load(fixture('tiny'), { grants: ['args'] })).call('arg-count')).toBe(0);
  });

  it('narrows or replaces the manifest grants at load', async () => {
    const h = host();
    const dir = writePackage(join(tmp.dir, 'grants'), manifestToml(['env:TRUST_A', 'env:TRUST_B']), {
      'tiny.wasm': fixture('tiny'),
    });
    expect(await (await h.load(dir)).call('env-count')).toBe(2);
    expect(await (await h.load(dir, { grants: ['env:TRUST_A'] })).call('env-count')).toBe(1);
    expect(await (await h.load(dir, { grants: [] })).call('env-count')).toBe(0);
    const narrowed = await h.load(dir, { grants: ['env:TRUST_B', 'env:TRUST_C'], grantMode: 'narrow' });
    expect(narrowed.capabilities).toEqual(['env:TRUST_B']);
  });

  it('audits the load and each grant, and denied loads', async () => {
    const audit = memoryAudit();
    const h = host({ audit });
    await h.load(fixture('tiny'), { grants: ['env:TRUST_A', 'clocks'], id: 'audited' });
    await h.load(fixture('tiny'), { grants: ['gpu'], id: 'refused' }).catch(() => undefined);
    expect(audit.events.map((e) => [e.principal.id, e.action, e.target, e.decision])).toEqual([
      ['audited', 'plugin.grant', 'env:TRUST_A', 'allow'],
      ['audited', 'plugin.grant', 'clocks', 'allow'],
      ['audited', 'plugin.load', 'component@-', 'allow'],
      ['refused', 'plugin.load', '<bytes>', 'deny'],
    ]);
    expect(audit.events[3]?.code).toBeTrustCode('WASM_CAPABILITY_UNKNOWN');
  });

  it('caches transpiled output on disk by component hash', async () => {
    const digest = (await describeComponent(fixture('tiny'))).digest;
    expect(existsSync(join(cacheDir, digest, 'glue.mjs'))).toBe(true);
    expect(readdirSync(join(cacheDir, digest))).toEqual(expect.arrayContaining(['meta.json']));
    const fresh = host();
    expect(await (await fresh.load(fixture('tiny'))).call('add', 40, 2)).toBe(42);
  });
});

describe('packages end to end', () => {
  it('packs, signs, unpacks and loads a .tpkg; the archive bytes are what gets verified', async () => {
    const { packPackage } = await import('./archive.js');
    const { writeFileSync } = await import('node:fs');
    const { privateKey, publicKey } = generateSigningKey();
    const dir = writePackage(join(tmp.dir, 'tpkg'), manifestToml(['env:TRUST_A']), { 'tiny.wasm': fixture('tiny') });
    const archive = await packPackage(signPackage(await readPackageDir(dir), privateKey).package);
    const file = join(tmp.dir, 'tiny-1.0.0.tpkg');
    writeFileSync(file, archive);
    const h = createPluginHost({ trustedKeys: [publicKey], env: { TRUST_A: '1' } });
    hosts.push(h);
    const plugin = await h.load(file);
    expect([plugin.name, plugin.version, plugin.signer?.keyId]).toEqual(['tiny', '1.0.0', publicKey.keyId]);
    expect(await plugin.call('env-count')).toBe(1);
    expect(await (await h.load(archive)).call('add', 1, 2)).toBe(3);
  });
});
