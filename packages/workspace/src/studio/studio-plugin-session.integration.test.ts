import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '@trust/core';
import { formatKeyFile, generateSigningKey, readPackageDir, signPackage } from '@trust/wasm-host';
import { createStudioPluginSession } from './studio-plugin-session.js';

// Real components in real workers: the `tiny` example shipped with @trust/wasm-host (exports add,
// echo, env-count, spin; asks for env:GREETING), signed by a key the session trusts.
const dir = mkdtempSync(join(tmpdir(), 'studio-plugin-session-int-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = generateSigningKey();
const plugins = join(dir, 'plugins');
mkdirSync(plugins, { recursive: true });
const tinyExample = join(dirname(fileURLToPath(import.meta.resolve('@trust/wasm-host'))), '..', 'examples', 'tiny');

async function makeSession(maxLoaded = 4) {
  const tiny = join(plugins, 'tiny');
  cpSync(tinyExample, tiny, { recursive: true, force: true });
  writeFileSync(join(tiny, 'package.sig'), signPackage(await readPackageDir(tiny), key.privateKey).signature);
  return createStudioPluginSession({
    pluginsDir: plugins,
    trustedKeyTexts: [formatKeyFile(key.publicKey)],
    audit: createMemoryAuditSink(),
    env: { GREETING: 'hi', SECRET: 'never granted' },
    callTimeoutMs: 1000,
    maxLoaded,
  });
}

describe('studio plugin session with real plugins', () => {
  it(
    'loads with narrowed grants: the guest sees only what was granted, ' + 'and the grant decisions are returned',
    async () => {
      const s = await makeSession();
      try {
        const none = await s.pluginLoad({ source: 'tiny', grants: [] });
        expect(none.plugin).toMatchObject({ name: 'tiny', capabilities: [], requested: ['env:GREETING'] });
        expect((await s.pluginCall(none.plugin.id, 'env-count', [])).result).toBe(0);
        const one = await s.pluginLoad({ source: 'tiny', grants: ['env:GREETING'] });
        expect(one.plugin.capabilities).toEqual(['env:GREETING']);
        expect(one.decisions).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ action: 'plugin.grant', target: 'env:GREETING', decision: 'allow' }),
          ]),
        );
        const called = await s.pluginCall(one.plugin.id, 'env-count', []);
        expect(called).toMatchObject({ result: 1, output: { stdout: '', stderr: '' }, export: 'env-count' });
        expect((await s.pluginCall(one.plugin.id, 'add', [2, 3])).result).toBe(5);
        const xss = '<img src=x onerror=alert(1)>';
        expect((await s.pluginCall(one.plugin.id, 'echo', [xss])).result).toBe(xss);
        expect(s.pluginsLoaded().map((p) => p.id)).toEqual([none.plugin.id, one.plugin.id]);
        await s.pluginUnload(none.plugin.id);
        expect(s.pluginsLoaded().map((p) => p.id)).toEqual([one.plugin.id]);
      } finally {
        await s.close();
      }
    },
  );

  it('a spinning export is stopped at the call deadline; the plugin is then dead and says so', async () => {
    const s = await makeSession();
    try {
      const { plugin } = await s.pluginLoad({ source: 'tiny', grants: [] });
      const spun = await s.pluginCall(plugin.id, 'spin', []);
      expect(spun.error).toHaveTrustCode('WASM_TIMEOUT');
      expect(spun.plugin.dead).toHaveTrustCode('WASM_TIMEOUT');
      const after = await s.pluginCall(plugin.id, 'add', [1, 1]);
      expect(after.error).toHaveTrustCode('WASM_PLUGIN_DEAD');
    } finally {
      await s.close();
    }
  });

  it('calls only functions the component exports, never a property of its glue (constructor, add.call)', async () => {
    const s = await makeSession();
    try {
      const { plugin } = await s.pluginLoad({ source: 'tiny', grants: [] });
      expect((await s.pluginCall(plugin.id, 'envCount', [])).result).toBe(0);
      for (const name of [
        'constructor',
        'toString',
        '__proto__',
        'add.call',
        'add.constructor',
        'echo.apply',
        'memory',
      ])
        await expect(s.pluginCall(plugin.id, name, ['x'])).rejects.toThrowTrustError('STUDIO_PLUGIN_EXPORT_UNKNOWN');
      expect((await s.pluginCall(plugin.id, 'add', [1, 2])).result).toBe(3);
    } finally {
      await s.close();
    }
  });

  it('caps how many plugins are loaded at once', async () => {
    const s = await makeSession(1);
    try {
      const first = await s.pluginLoad({ source: 'tiny', grants: [] });
      await expect(s.pluginLoad({ source: 'tiny', grants: [] })).rejects.toThrowTrustError('STUDIO_PLUGIN_LIMIT');
      await s.pluginUnload(first.plugin.id);
      await expect(s.pluginLoad({ source: 'tiny', grants: [] })).resolves.toBeDefined();
    } finally {
      await s.close();
    }
  });

  it('refuses a second call while one is running', async () => {
    const s = await makeSession();
    try {
      const { plugin } = await s.pluginLoad({ source: 'tiny', grants: [] });
      const spinning = s.pluginCall(plugin.id, 'spin', []);
      await expect(s.pluginCall(plugin.id, 'add', [1, 2])).rejects.toThrowTrustError('STUDIO_PLUGIN_BUSY');
      expect((await spinning).error).toHaveTrustCode('WASM_TIMEOUT');
    } finally {
      await s.close();
    }
  });
});
