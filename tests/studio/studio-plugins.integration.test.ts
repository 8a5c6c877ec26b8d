import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createWorkspaceAgents, type ControlServer } from '@trust/workspace';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, openPage, screenshot, startStudio } from './studio-harness.js';
import { startCliStudio, type CliStudio } from './cli-studio.js';
import { watchPage } from './studio-fixture.js';
import { expectMainInert } from './expect-inert.js';
import { XSS_CORPUS } from './xss-corpus.js';

// The plugin inspector: the demo's real signed package as `trust studio` inspects it, and the XSS
// corpus as plugin metadata (a package author controls every string of it).
let browser: Browser;
let cli: CliStudio;
let hostile: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
const evil = (i: number) => XSS_CORPUS[i % XSS_CORPUS.length]!.payload;

beforeAll(async () => {
  browser = await launchBrowser();
  cli = await startCliStudio();
  agents = createWorkspaceAgents({ dir: mkdtempSync(join(tmpdir(), 'studio-plugins-')) });
  hostile = await startStudio(agents, {
    plugins: () =>
      XSS_CORPUS.map((c, i) => ({
        name: c.payload,
        version: evil(i + 1),
        source: evil(i + 2),
        capabilities: [{ name: evil(i + 3), risk: 'high' as const, note: evil(i + 4) }],
        signature: { status: 'invalid' as const, signer: evil(i + 5), reason: evil(i + 6) },
        component: { path: evil(i + 7), digest: evil(i + 8), size: 1, interfaceHash: evil(i + 9) },
        interface: evil(i + 10),
        exports: [evil(i + 11)],
        imports: [{ name: evil(i + 12), granted: false, refused: evil(i + 13), hint: evil(i + 14) }],
      })),
  });
});
afterAll(async () => {
  await browser?.close();
  if (cli !== undefined) expect(await cli.stop()).toBe(0);
  await hostile?.close();
  agents?.close();
});

describe('plugin inspector (Chromium)', () => {
  it(
    'shows the real demo package: capabilities first, signer and trust, digest, interface hash, exports, ' + 'imports',
    async () => {
      const res = await fetch(`${cli.url}/api/v1/plugins`, { headers: { authorization: `Bearer ${cli.token}` } });
      const { plugins } = (await res.json()) as {
        plugins: {
          name: string;
          signature: { signer: string };
          component: { digest: string; interfaceHash: string };
        }[];
      };
      const hello = plugins.find((p) => p.name === 'hello')!;
      expect(hello.component.digest).toMatch(/^[0-9a-f]{64}$/);

      const page = await openPage(browser);
      const { problems } = watchPage(page);
      await page.goto(`${cli.url}/#token=${cli.token}`);
      await page.locator('nav button[data-view=plugins]').click();
      const card = page.locator('article.plugin[data-plugin="hello"]');
      await card.waitFor();
      const headings = await card.locator('h4').allTextContents();
      expect(headings[0]).toBe('Capabilities');
      expect(headings).toEqual(['Capabilities', 'Signature', 'Component', 'Imports against grants']);
      expect(await card.locator('[data-signature]').getAttribute('data-signature')).toBe('valid');
      expect(await card.locator('.signature').textContent()).toContain(hello.signature.signer);
      expect(await card.locator('.signature').textContent()).toContain('signed by a trusted key');
      expect(await card.locator('.digest').textContent()).toBe(hello.component.digest);
      expect(await card.locator('.interface-hash').textContent()).toBe(hello.component.interfaceHash);
      expect((await card.locator('.export').allTextContents()).join(' ')).toContain('add');
      expect(await card.textContent()).toContain('None declared');
      await screenshot(page, 'plugins-inspector');
      expect(problems).toEqual([]);
      await page.context().close();
    },
  );

  it('shows imports a load would refuse, and stays inert with the XSS corpus in every field', async () => {
    const page = await openPage(browser);
    await page.goto(`${hostile.url}/#token=${hostile.token}`);
    await page.locator('nav button[data-view=plugins]').click();
    await expect.poll(async () => page.locator('article.plugin').count()).toBe(XSS_CORPUS.length);
    expect(await page.locator('tr[data-import] .badge.deny').first().textContent()).toBe('would be refused');
    expect(await page.locator('article.plugin .error').first().textContent()).toContain(
      'A load with these grants would refuse this import',
    );
    // Every payload is text: no element, attribute or script of it reached the DOM.
    await expectMainInert(page);
    expect(await page.locator('article.plugin h3').first().textContent()).toContain(XSS_CORPUS[0]!.payload);
    expect(hostile.cspReports()).toEqual([]);
    await screenshot(page, 'plugins-xss');
    await page.context().close();
  });
});
