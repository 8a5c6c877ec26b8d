/**
 * Host descriptors a guest opens are closed when its worker stops, even when the worker is
 * terminated mid-call (Node's `trackUnmanagedFds`, pinned in the worker options), and the pinned
 * grant directories when the plugin is disposed.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { denyAllPolicy, fixture, tempDir } from '../../test/helpers.js';
import { createPluginHost } from '../plugin-host.js';

const tmp = tempDir('wasm-fd-');
const host = createPluginHost({
  requireSignature: false,
  cacheDir: join(tmp.dir, 'cache'),
  limits: { callTimeoutMs: 3000 },
});
afterAll(async () => {
  await host.close();
  tmp.cleanup();
});
const openFds = () => readdirSync('/proc/self/fd').length;
const NET = ['http', 'tcp', 'udp'];

describe('descriptor release', () => {
  it('closes what a leaking guest holds when its worker is terminated, and the grant on dispose', async () => {
    const dir = join(tmp.dir, 'g');
    mkdirSync(dir);
    writeFileSync(join(dir, 'f.txt'), 'x');
    // warm up once so lazily opened process-wide descriptors are already counted
    await (await host.load(fixture('probe'), { grants: NET, egress: denyAllPolicy })).dispose();
    const baseline = openFds();
    const p = await host.load(fixture('probe'), { grants: [`fs:ro:${dir}`, ...NET], egress: denyAllPolicy });
    const loaded = openFds();
    expect(await p.call('run', 'hold', `${join(dir, 'f.txt')}\n200`)).toBe('200');
    expect(openFds()).toBeGreaterThanOrEqual(loaded + 200);
    await expect(p.call('run', 'spin', '')).rejects.toHaveTrustCode('WASM_TIMEOUT');
    await new Promise((r) => setTimeout(r, 100));
    expect(openFds()).toBeLessThan(loaded + 5);
    await p.dispose();
    expect(openFds()).toBeLessThanOrEqual(baseline);
  });
});
