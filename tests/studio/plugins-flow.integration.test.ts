import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createWorkspaceAgents, type ControlServer, type PluginActionHooks } from '@trust/workspace';
import { launchBrowser, openPage, screenshot, startStudio } from './studio-harness.js';
import { startCliStudio, type CliStudio } from './cli-studio.js';
import { watchPage } from './studio-fixture.js';
import { expectMainInert } from './expect-inert.js';
import { XSS_CORPUS } from './xss-corpus.js';

// The plugin actions against a real `trust studio` (demo workspace, its real signed sample plugin):
// load with narrowed grants, call an export, unload; upload a .tpkg built by `trust package build`
// and a corrupt one. Then the XSS corpus as every string the plugin actions show.
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@trust', 'cli', 'bin', 'trust.cjs');
const trust = (args: string[], cwd: string) =>
  execFileSync(process.execPath, [bin, ...args], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });

let browser: Browser;
let cli: CliStudio;
let hostile: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
const evil = (i: number) => XSS_CORPUS[i % XSS_CORPUS.length]!.payload;

function hostileHooks(): PluginActionHooks {
  const loaded = XSS_CORPUS.map((c, i) => ({
    id: `x${i}`,
    name: c.payload,
    version: evil(i + 1),
    source: evil(i + 2),
    digest: evil(i + 3),
    capabilities: [evil(i + 4)],
    requested: [evil(i + 5)],
    exports: [`add: func() -> string`, evil(i + 6)],
    signer: evil(i + 7),
    ...(i % 2 === 0 ? { dead: { code: evil(i + 8), message: evil(i + 9) } } : {}),
  }));
  const decisions = XSS_CORPUS.map((c, i) => ({
    time: evil(i),
    action: c.payload,
    target: evil(i + 1),
    decision: 'deny' as const,
    rule: evil(i + 2),
    code: evil(i + 3),
    reason: evil(i + 4),
  }));
  return {
    pluginsLoaded: () => loaded,
    pluginLoad: async () => ({ plugin: loaded[0]!, decisions }),
    pluginCall: async (id, name) => ({
      plugin: loaded.find((p) => p.id === id)!,
      export: name,
      result: { html: evil(0), list: XSS_CORPUS.map((c) => c.payload) },
      output: { stdout: XSS_CORPUS.map((c) => c.payload).join('\n'), stderr: evil(3) },
      decisions,
      ms: 1,
    }),
    pluginUnload: async (id) => ({ unloaded: id }),
    pluginUpload: async () => ({ name: evil(0), capabilities: [], signature: { status: 'valid', signer: evil(1) } }),
  };
}

beforeAll(async () => {
  browser = await launchBrowser();
  cli = await startCliStudio();
  agents = createWorkspaceAgents({ dir: mkdtempSync(join(tmpdir(), 'plugins-flow-')) });
  hostile = await startStudio(agents, {
    plugins: () => [
      {
        name: evil(0),
        source: 'evil',
        capabilities: XSS_CORPUS.map((c) => ({ name: c.payload, risk: 'high' as const })),
      },
    ],
    pluginActions: hostileHooks(),
  });
});
afterAll(async () => {
  await browser?.close();
  if (cli !== undefined) expect(await cli.stop()).toBe(0);
  await hostile?.close();
  agents?.close();
});

async function pluginsPage(url: string, token: string): Promise<Page> {
  const page = await openPage(browser);
  await page.goto(`${url}/#token=${token}`);
  await page.locator('nav button[data-view=plugins]').click();
  return page;
}

describe('plugin actions (Chromium, real trust studio)', () => {
  it(
    'loads the signed sample plugin, calls add with JSON arguments, sees the result and output, unloads ' + 'it',
    async () => {
      const page = await pluginsPage(cli.url, cli.token);
      const { problems } = watchPage(page);
      const load = page.locator('[data-load="hello"]');
      await load.locator('button.load-plugin').click();
      await expect.poll(() => load.locator('.load-result').textContent()).toContain('with no capabilities');
      const loaded = page.locator('article.plugin-loaded').first();
      await loaded.waitFor();
      expect(await loaded.getAttribute('data-loaded')).toMatch(/^hello-\d+$/);
      await loaded.locator('.call-export').fill('add');
      await loaded.locator('.call-args').fill('[40, 2]');
      await loaded.locator('button.call-plugin').click();
      await expect.poll(() => loaded.locator('.call-value').textContent()).toBe('42');
      expect(await loaded.locator('.call-result').textContent()).toContain('No output');
      expect(await loaded.locator('.call-result').textContent()).toContain('No egress or other decisions');
      // A bad argument text is refused by the server with its code, shown in place.
      await loaded.locator('.call-args').fill('[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]');
      await loaded.locator('button.call-plugin').click();
      await expect.poll(() => loaded.locator('.error code').first().textContent()).toBe('INPUT_TOO_DEEP');
      await screenshot(page, 'plugins-flow');
      await loaded.locator('button.unload-plugin').click();
      await expect.poll(() => page.locator('article.plugin-loaded').count()).toBe(0);
      // The one refusal asked for, and nothing else (no other failed request, no script error).
      expect(problems).toEqual([
        expect.stringMatching(/^400 http:\/\/127\.0\.0\.1:\d+\/api\/v1\/plugins\/loaded\/hello-\d+\/call$/),
        'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      ]);
      await page.context().close();
    },
  );

  it(
    'uploads a .tpkg built by `trust package build`, loads it with a narrowed grant; a corrupt one is refused ' +
      'with its code',
    async () => {
      const work = mkdtempSync(join(tmpdir(), 'plugins-flow-pkg-'));
      const dir = join(work, 'greeter');
      trust(['package', 'init', dir], work);
      const toml = join(dir, 'package.toml');
      writeFileSync(
        toml,
        readFileSync(toml, 'utf8').replace('capabilities = []', 'capabilities = ["env:GREETING", "stdout"]'),
      );
      trust(['package', 'sign', dir, '--key', join(cli.workspace, 'keys', 'demo-signing.key')], work);
      const tpkg = join(work, 'greeter.tpkg');
      trust(['package', 'build', dir, '-o', tpkg], work);

      const page = await pluginsPage(cli.url, cli.token);
      const { problems } = watchPage(page);
      await page.locator('.upload-input').setInputFiles(tpkg);
      await expect.poll(() => page.locator('.upload-status').textContent()).toContain('Added greeter (valid)');
      const load = page.locator('[data-load="greeter"]');
      await load.waitFor();
      expect(await load.locator('input[data-grant]').count()).toBe(2);
      await load.locator('input[data-grant="stdout"]').check();
      await load.locator('button.load-plugin').click();
      await expect.poll(() => load.locator('.load-result').textContent()).toContain('with stdout');
      expect(await load.locator('tr[data-action="plugin.grant"]').allTextContents()).toEqual([
        expect.stringContaining('stdout'),
      ]);
      const loaded = page.locator('article.plugin-loaded[data-loaded^="greeter-"]');
      expect(await loaded.textContent()).toContain('granted stdout of env:GREETING, stdout');
      await loaded.locator('.call-export').fill('hello');
      await loaded.locator('button.call-plugin').click();
      await expect.poll(() => loaded.locator('.call-value').textContent()).toMatch(/^".+"$/);

      // The server refuses a grant the manifest does not declare, whatever the page offers.
      const wider = await fetch(`${cli.url}/api/v1/plugins/load`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cli.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source: 'greeter', grants: ['stdout', 'env:HOME'] }),
      });
      expect(((await wider.json()) as { error: { code: string } }).error.code).toBeTrustCode(
        'STUDIO_PLUGIN_GRANT_WIDER',
      );

      const bytes = readFileSync(tpkg);
      const corrupt = join(work, 'corrupt.tpkg');
      writeFileSync(corrupt, bytes.subarray(0, Math.floor(bytes.length / 2)));
      await page.locator('.upload-input').setInputFiles(corrupt);
      await expect.poll(() => page.locator('.upload-status .error code').textContent()).toBe('WASM_PACKAGE_MALFORMED');
      await page.locator('.upload-input').setInputFiles(tpkg);
      await expect.poll(() => page.locator('.upload-status .error code').textContent()).toBe('STUDIO_PLUGIN_EXISTS');
      await screenshot(page, 'plugins-upload');
      // The two refused uploads, and nothing else.
      expect(
        problems.filter(
          (p) => !p.startsWith('console: Failed to load resource: the server responded with a status of 400'),
        ),
      ).toEqual([`400 ${cli.url}/api/v1/plugins/upload`, `400 ${cli.url}/api/v1/plugins/upload`]);
      expect(problems).toHaveLength(4);
      await page.context().close();
    },
  );
});

describe('plugin actions with the XSS corpus (Chromium)', () => {
  it('every string of loaded plugins, results, output, decisions and uploads stays text', async () => {
    const page = await pluginsPage(hostile.url, hostile.token);
    await expect.poll(() => page.locator('article.plugin-loaded').count()).toBe(XSS_CORPUS.length);
    await page.locator('[data-load="evil"] input[data-grant]').first().check();
    await page.locator('[data-load="evil"] button.load-plugin').click();
    await expect.poll(() => page.locator('.load-result tr').count()).toBe(XSS_CORPUS.length);
    const first = page.locator('article.plugin-loaded').nth(1);
    await first.locator('button.call-plugin').click();
    await expect.poll(() => first.locator('.call-stdout').textContent()).toContain(XSS_CORPUS[0]!.payload);
    expect(await first.locator('.call-value').textContent()).toContain('onerror');
    await page
      .locator('.upload-input')
      .setInputFiles({ name: 'x.tpkg', mimeType: 'application/gzip', buffer: Buffer.from([0x1f, 0x8b]) });
    await expect.poll(() => page.locator('.upload-status').textContent()).toContain(XSS_CORPUS[0]!.payload);
    await expectMainInert(page);
    expect(hostile.cspReports()).toEqual([]);
    await screenshot(page, 'plugins-flow-xss');
    await page.context().close();
  });
});
