import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

// A plugin with a network grant in a real `trust studio`: wasm-host's `fetcher` guest (fetch() over
// wasi:http, built by componentize-js), signed with the demo key, loaded in its own worker under the
// workspace's egress-policy.json, calling two real loopback peers started here: one the policy
// allows (the answer reaches the call result), one it denies (the decision links to its rule, in
// the plugins view and in the audit timeline). Then the XSS corpus through every new field.
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@trust', 'cli', 'bin', 'trust.cjs');
const wasmHostDir = join(dirname(fileURLToPath(import.meta.resolve('@trust/wasm-host'))), '..');
const servers: Server[] = [];
const seen: string[] = [];
let browser: Browser;
let cli: CliStudio;
let hostile: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
let allowedPort = 0;
let deniedPort = 0;
const evil = (i: number) => XSS_CORPUS[i % XSS_CORPUS.length]!.payload;

async function listen(name: string): Promise<number> {
  const s = createServer((req, res) => {
    seen.push(`${name} ${req.url}`);
    res.end(`hello from the ${name} peer`);
  });
  servers.push(s);
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  return (s.address() as AddressInfo).port;
}

function hostileHooks(): PluginActionHooks {
  const egress = {
    file: evil(0),
    name: evil(1),
    rules: [
      ...XSS_CORPUS.map((c, i) => ({ path: c.payload, value: evil(i + 1) })),
      { path: 'http.deny', value: evil(2) },
    ],
  };
  const plugin = {
    id: 'x0',
    name: evil(3),
    source: 'evil',
    digest: evil(4),
    capabilities: ['http'],
    requested: ['http'],
    exports: ['run: func() -> string'],
    egress,
  };
  const decisions = XSS_CORPUS.map((c, i) => ({
    time: evil(i),
    action: 'egress.http',
    target: c.payload,
    decision: 'deny' as const,
    rule: `${evil(i + 1)}:http.deny`,
    code: evil(i + 2),
    reason: evil(i + 3),
  }));
  return {
    pluginsLoaded: () => [plugin],
    pluginLoad: async () => ({ plugin, decisions }),
    pluginCall: async (_id, name) => ({
      plugin,
      export: name,
      result: evil(5),
      output: { stdout: '', stderr: '' },
      decisions,
      ms: 1,
    }),
    pluginUnload: async (id) => ({ unloaded: id }),
  };
}

beforeAll(async () => {
  // The fixture is built in its own process (jco's WIT reader must not run where plugins are hosted); cached.
  execFileSync(process.execPath, [join(wasmHostDir, 'scripts', 'build-fixtures.mjs'), '--only', 'fetcher'], {
    cwd: wasmHostDir,
    stdio: 'inherit',
  });
  allowedPort = await listen('allowed');
  deniedPort = await listen('denied');
  browser = await launchBrowser();
  cli = await startCliStudio();
  const pkg = join(cli.workspace, 'plugins', 'fetcher');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'fetcher.wasm'), readFileSync(join(wasmHostDir, '.fixtures', 'fetcher.wasm')));
  writeFileSync(
    join(pkg, 'package.toml'),
    '[package]\nname = "fetcher"\nversion = "1.0.0"\n\n[wasm]\ncomponent = "fetcher.wasm"\ncapabilities = ["http"]\n',
  );
  execFileSync(
    process.execPath,
    [bin, 'package', 'sign', pkg, '--key', join(cli.workspace, 'keys', 'demo-signing.key')],
    {
      cwd: cli.workspace,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    },
  );
  agents = createWorkspaceAgents({ dir: mkdtempSync(join(tmpdir(), 'plugins-egress-')) });
  hostile = await startStudio(agents, {
    plugins: () => [{ name: evil(0), source: 'evil', capabilities: [{ name: 'http', risk: 'high' as const }] }],
    pluginActions: hostileHooks(),
    auditLogs: () => [
      {
        name: 'control',
        kind: 'control',
        chain: null,
        events: XSS_CORPUS.map((c, i) => ({
          time: '2026-01-01T00:00:00.000Z',
          principal: { kind: 'plugin', id: 'x0' },
          action: 'egress.http',
          target: c.payload,
          decision: 'deny' as const,
          rule: `${evil(i + 1)}:http.deny`,
          code: 'EGRESS_HOST_DENIED',
        })),
      },
    ],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (cli !== undefined) expect(await cli.stop()).toBe(0);
  await hostile?.close();
  agents?.close();
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
});

async function pluginsPage(url: string, token: string): Promise<Page> {
  const page = await openPage(browser);
  await page.goto(`${url}/#token=${token}`);
  await page.locator('nav button[data-view=plugins]').click();
  return page;
}

const fetchArgs = (port: number) => JSON.stringify(['fetch', JSON.stringify({ url: `http://127.0.0.1:${port}/` })]);

describe('a plugin with an http grant (Chromium, real trust studio, real loopback peers)', () => {
  it('is refused without a workspace policy, then runs under it: one request allowed, one denied', async () => {
    const page = await pluginsPage(cli.url, cli.token);
    const { problems } = watchPage(page);
    const load = page.locator('[data-load="fetcher"]');
    await load.locator('input[data-grant="http"]').check();
    // No egress-policy.json yet: refused, fail closed, with the code and where to put the policy.
    await load.locator('button.load-plugin').click();
    await expect
      .poll(() => load.locator('.error code').first().textContent())
      .toBe('STUDIO_PLUGIN_EGRESS_POLICY_MISSING');
    expect(await load.locator('.error').textContent()).toContain(join(cli.workspace, 'egress-policy.json'));
    expect(await page.locator('article.plugin-loaded').count()).toBe(0);

    writeFileSync(
      join(cli.workspace, 'egress-policy.json'),
      JSON.stringify({
        v: 1,
        name: 'plugins',
        http: { allow: ['127.0.0.1'], deny: [`127.0.0.1:${deniedPort}`] },
        guard: { mode: 'allow-local' },
      }),
    );
    await load.locator('button.load-plugin').click();
    await expect.poll(() => load.locator('.load-result').textContent()).toContain('with http');
    const loaded = page.locator('article.plugin-loaded[data-loaded^="fetcher-"]');
    await loaded.waitFor();
    expect(await loaded.textContent()).toContain('egress-policy.json');

    await loaded.locator('.call-export').fill('run');
    await loaded.locator('.call-args').fill(fetchArgs(allowedPort));
    await loaded.locator('button.call-plugin').click();
    await expect.poll(() => loaded.locator('.call-value').textContent()).toContain('hello from the allowed peer');
    const allowed = loaded.locator('.call-result tr[data-action="egress.http"]');
    expect(await allowed.count()).toBe(1);
    expect(await allowed.textContent()).toContain('allow');
    expect(await allowed.textContent()).toContain(`http://127.0.0.1:${allowedPort}/`);

    await loaded.locator('.call-args').fill(fetchArgs(deniedPort));
    await loaded.locator('button.call-plugin').click();
    await expect.poll(() => loaded.locator('.call-value').textContent()).toContain('ERROR:');
    const denied = loaded.locator('.call-result tr[data-action="egress.http"]');
    expect(await denied.count()).toBe(1);
    expect(await denied.textContent()).toContain('deny');
    expect(await denied.textContent()).toContain('rule plugins:http.deny');
    expect(await denied.textContent()).toContain('EGRESS_HOST_DENIED');
    await denied.locator('[data-rule-link="http.deny"]').click();
    const rule = loaded.locator('.plugin-egress [data-section="http.deny"]');
    expect(await rule.getAttribute('class')).toContain('highlight');
    expect(await rule.textContent()).toContain(`127.0.0.1:${deniedPort}`);
    await screenshot(page, 'plugins-egress');
    // The denied peer was never reached; the allowed one once.
    expect(seen).toEqual(['allowed /']);

    // The same decisions in the audit timeline (the hash-chained edge log), the denial linked to its rule.
    await page.locator('nav button[data-view=audit]').click();
    const row = page.locator('tr[data-action="egress.http"].denied', { hasText: `127.0.0.1:${deniedPort}` });
    await row.first().waitFor();
    expect(await row.first().textContent()).toContain('plugins:http.deny');
    await row.first().locator('[data-rule-link="http.deny"]').click();
    const fromAudit = row.first().locator('[data-section="http.deny"]');
    await fromAudit.waitFor();
    expect(await fromAudit.getAttribute('class')).toContain('highlight');
    expect(
      await page.locator('tr[data-action="egress.http"]:not(.denied)', { hasText: `:${allowedPort}/` }).count(),
    ).toBe(1);
    await screenshot(page, 'plugins-egress-audit');
    // The one refused load, and nothing else.
    expect(problems).toEqual([
      `400 ${cli.url}/api/v1/plugins/load`,
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    await page.context().close();
  }, 120_000);
});

describe('plugin egress fields with the XSS corpus (Chromium)', () => {
  it('the policy file, name, rules and denials stay text in the plugins view and the audit timeline', async () => {
    const page = await pluginsPage(hostile.url, hostile.token);
    const loaded = page.locator('article.plugin-loaded');
    await loaded.waitFor();
    await loaded.locator('button.show-egress-policy').click();
    await expect.poll(() => loaded.locator('.plugin-egress .rule-row').count()).toBe(XSS_CORPUS.length + 1);
    await loaded.locator('button.call-plugin').click();
    await expect.poll(() => loaded.locator('.call-result tr').count()).toBe(XSS_CORPUS.length);
    await loaded.locator('.call-result [data-rule-link="http.deny"]').first().click();
    await loaded.locator('.call-result .plugin-egress .highlight').waitFor();
    expect(await loaded.textContent()).toContain(XSS_CORPUS[0]!.payload);
    await expectMainInert(page);
    await page.locator('nav button[data-view=audit]').click();
    const rows = page.locator('tr[data-action="egress.http"].denied');
    await expect.poll(() => rows.count()).toBe(XSS_CORPUS.length);
    await rows.first().locator('[data-rule-link="http.deny"]').click();
    await rows.first().locator('.plugin-egress .highlight').waitFor();
    await expectMainInert(page, 'script, iframe, object, embed, style, math, form, meta, base, img, details');
    expect(hostile.cspReports()).toEqual([]);
    await page.context().close();
  });
});
