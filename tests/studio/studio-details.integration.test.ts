import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, screenshot } from './studio-harness.js';
import { startFixture, watchPage, type StudioFixture } from './studio-fixture.js';

// The details an owner meets first in the studio: config, dangerous tools, the approvals badge,
// and a clean load (no 404, no console error).
let browser: Browser;
let fx: StudioFixture;

beforeAll(async () => {
  browser = await launchBrowser();
  fx = await startFixture([
    {
      when: 'save the plan',
      reply: [{ type: 'tool_use', id: '', name: 'fs_write', input: { path: 'plan.md', mode: 'write', content: 'x' } }],
    },
  ]);
});
afterAll(async () => {
  await browser?.close();
  await fx?.close();
});

const open = async () => {
  const page = await openPage(browser);
  const watch = watchPage(page);
  await page.goto(`${fx.server.url}/#token=${fx.server.token}`);
  await page.getByRole('button', { name: 'Start' }).waitFor();
  return { page, watch };
};

describe('studio details (Chromium, real control server and agent)', () => {
  it('loads with no failed request and no console error; the favicon is served', async () => {
    const { page, watch } = await open();
    await page.locator('.live.on').waitFor();
    const icon = await page.evaluate(
      `fetch(document.querySelector('link[rel=icon]').href).then((r) => r.status + ' ' + ` +
        `r.headers.get('content-type'))`,
    );
    expect(icon).toBe('200 image/svg+xml');
    // Visit every view and wait for what it loads, so any failed request of it has happened.
    const views: [string, string][] = [
      ['Approvals', 'text=Nothing waits for you.'],
      ['Tools & config', 'pre.config-json'],
      ['Audit', '[data-chain]'],
      ['Plugins', 'text=provides no plugin'],
      ['Sandbox runs', 'text=provides no sandbox'],
      ['Agents', '.composer'],
    ];
    for (const [view, ready] of views) {
      await page.locator(`nav button[data-view]`, { hasText: view }).click();
      await page.locator(ready).first().waitFor();
    }
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('config: limits are shown (not redacted), the example path is valid, errors appear under the form', async () => {
    const { page } = await open();
    await page.getByRole('button', { name: 'Tools & config' }).click();
    const json = page.locator('pre.config-json');
    await json.waitFor();
    expect(await json.textContent()).toContain('"max_file_read_tokens": 30000');
    expect(await json.textContent()).not.toContain('__redacted__');
    const pathInput = page.getByLabel('config path');
    const example = await pathInput.getAttribute('placeholder');
    // The example is a real key: setting it through the API works.
    expect((await fx.api('PATCH', '/agents/helper/config', { path: example, value: 20 })).status).toBe(200);
    const options = await page
      .locator('#config-paths option')
      .evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    expect(options).toContain(example);

    await pathInput.fill('limits.max_sql_rows');
    await page.getByLabel('config value').fill('-5');
    await page.getByRole('button', { name: 'Set (owner, audited)' }).click();
    const err = page.locator('.config .form-result [role=alert]');
    await err.waitFor();
    expect(await page.locator('main > section > [role=alert]').count()).toBe(0);
    expect(await err.isVisible()).toBe(true);
    const form = (await page.locator('.config-form').boundingBox())!;
    const box = (await err.boundingBox())!;
    expect(box.y).toBeGreaterThan(form.y);
    expect(box.y - (form.y + form.height)).toBeLessThan(60);
    await screenshot(page, 'config-error');

    await page.getByLabel('config value').fill('250');
    await page.getByRole('button', { name: 'Set (owner, audited)' }).click();
    await page.getByText('limits.max_sql_rows updated (audited)').waitFor();
    await expect.poll(async () => (await json.textContent()) ?? '').toContain('"max_sql_rows": 250');
    await page.context().close();
  });

  it('enabling a locked dangerous tool asks first; an enabled invisible tool says so', async () => {
    const { page } = await open();
    await page.getByRole('button', { name: 'Tools & config' }).click();
    const shellEnabled = async () =>
      ((await fx.api('GET', '/agents/helper/tools')).json.tools as { name: string; enabled: boolean }[]).find(
        (t) => t.name === 'adf_shell',
      )!.enabled;
    await page.getByLabel('adf_shell enabled').click();
    const dialog = page.getByRole('alertdialog', { name: 'confirm adf_shell' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('runs shell commands');
    expect(await shellEnabled()).toBe(false);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.count()).toBe(0);
    expect(await shellEnabled()).toBe(false);

    await page.getByLabel('ws_connect enabled').click();
    await page.getByRole('alertdialog', { name: 'confirm ws_connect' }).waitFor();
    await screenshot(page, 'tools-confirm');
    await page.getByRole('button', { name: 'Enable anyway' }).click();
    await expect
      .poll(
        async () =>
          ((await fx.api('GET', '/agents/helper/tools')).json.tools as { name: string; enabled: boolean }[]).find(
            (t) => t.name === 'ws_connect',
          )!.enabled,
      )
      .toBe(true);
    await page.getByText('ws_connect is enabled but not visible').waitFor();

    // A safe tool flips at once, with no question.
    await page.getByLabel('fs_list enabled').click();
    await expect
      .poll(
        async () =>
          ((await fx.api('GET', '/agents/helper/tools')).json.tools as { name: string; enabled: boolean }[]).find(
            (t) => t.name === 'fs_list',
          )!.enabled,
      )
      .toBe(false);
    expect(await page.getByRole('alertdialog').count()).toBe(0);
    await page.context().close();
  });

  it('a badge on Approvals counts what waits, live, and goes when it is answered', async () => {
    const { page } = await open();
    await page.locator('.live.on').waitFor();
    expect(await page.locator('.nav-badge').count()).toBe(0);
    expect((await fx.api('POST', '/agents/helper/chat', { text: 'save the plan' })).status).toBe(200);
    const badge = page.locator('.nav-badge');
    await badge.waitFor();
    expect(await badge.textContent()).toBe('1');
    await screenshot(page, 'approvals-badge');
    await page.getByRole('button', { name: /Approvals/ }).click();
    await page.locator('article.task').getByRole('button', { name: 'Deny' }).click();
    await badge.waitFor({ state: 'detached' });
    await page.context().close();
  });
});
