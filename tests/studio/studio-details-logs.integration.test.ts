import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AdfFile } from '@trust/agent-runtime';
import { launchBrowser, openPage, screenshot } from './studio-harness.js';
import { startFixture, watchPage, type StudioFixture } from './studio-fixture.js';
import { ACTIVE_ELEMENTS } from './expect-inert.js';
import { XSS_CORPUS } from './xss-corpus.js';

// The agent's Logs tab against a real control server and a real agent file: the empty state,
// the live tail, hostile log text shown as text, the level filter and older pages.
let browser: Browser;
let fx: StudioFixture;
let adf: AdfFile;

beforeAll(async () => {
  browser = await launchBrowser();
  fx = await startFixture([]);
  // The runtime's own handle: rows written through it are what the agent's runtime writes.
  adf = ((await fx.agents.open('helper')) as unknown as { adf: AdfFile }).adf;
});
afterAll(async () => {
  await browser?.close();
  await fx?.close();
});

async function openLogs(): Promise<{ page: Page; watch: { problems: string[] }; requests: string[] }> {
  const page = await openPage(browser);
  const watch = watchPage(page);
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${fx.server.url}/#token=${fx.server.token}`);
  await page.getByRole('button', { name: 'Start' }).waitFor();
  await page.locator('.live.on').waitFor();
  await page.locator('.tabs button', { hasText: 'logs' }).click();
  return { page, watch, requests };
}
const shown = (page: Page) => page.locator('[data-panel=logs] tbody tr');

describe('agent logs (Chromium, real control server and agent)', () => {
  it('says what to expect when there is no row, then tails hostile rows live, as text', async () => {
    const { page, watch, requests } = await openLogs();
    await page.locator('[data-empty=logs]').waitFor();
    expect(await page.locator('[data-empty=logs]').textContent()).toContain('No log rows yet');
    await screenshot(page, 'agent-logs-empty');

    for (const c of XSS_CORPUS)
      adf.logs.add({ level: 'warn', origin: c.name, event: c.payload, target: c.payload, message: c.payload, data: c });
    await expect.poll(() => shown(page).count()).toBe(XSS_CORPUS.length);
    const messages = await page.locator('[data-panel=logs] tbody tr pre.plain').allTextContents();
    expect(messages).toEqual(XSS_CORPUS.map((c) => c.payload));
    // The agents view has its own forms and styled widgets; inside the logs panel there is nothing active.
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator(`[data-panel=logs] :is(${ACTIVE_ELEMENTS})`).count()).toBe(0);
    const attrs = (await page.evaluate(
      `[...document.querySelectorAll('[data-panel=logs] *')].flatMap((el) => [...el.attributes]` +
        // Chromium itself puts an empty style on a datetime input.
        `.filter((a) => a.name !== 'style' || a.value !== '').map((a) => a.name))`,
    )) as string[];
    expect(attrs.filter((n) => n.startsWith('on') || n === 'style' || n === 'srcdoc' || n === 'href')).toEqual([]);
    expect(await page.locator('[data-panel=logs] :is(a, button, select, input)').count()).toBe(2);
    expect(requests.filter((u) => u.includes('127.0.0.1:9') || /\/x$/.test(u))).toEqual([]);
    expect(watch.problems).toEqual([]);
    await screenshot(page, 'agent-logs-xss');
    await page.context().close();
  });

  it('filters by level and loads older pages on demand', async () => {
    for (let i = 0; i < 130; i++) adf.logs.add({ level: 'info', origin: 'test', message: `row ${i}` });
    adf.logs.add({ level: 'error', origin: 'test', message: 'the one error' });
    const { page, watch } = await openLogs();
    await expect.poll(() => shown(page).count()).toBe(100);
    await page.getByRole('button', { name: 'load older rows' }).click();
    await expect.poll(() => shown(page).count()).toBe(130 + 1 + XSS_CORPUS.length);
    expect(await page.getByRole('button', { name: 'load older rows' }).count()).toBe(0);

    await page.getByLabel('log level').selectOption('error');
    await expect.poll(() => shown(page).count()).toBe(1);
    expect(await shown(page).first().locator('pre').textContent()).toBe('the one error');
    // A live row the filter hides stays hidden; one it shows appears.
    adf.logs.add({ level: 'info', message: 'hidden by the filter' });
    adf.logs.add({ level: 'error', message: 'a second error' });
    await expect.poll(() => shown(page).count()).toBe(2);
    expect(await page.locator('[data-panel=logs]').textContent()).not.toContain('hidden by the filter');

    await page.getByLabel('since').fill('2999-01-01T00:00:00');
    await page.locator('[data-empty=logs]').waitFor();
    expect(await page.locator('[data-empty=logs]').textContent()).toContain('No log rows match these filters');
    expect(watch.problems).toEqual([]);
    await page.getByLabel('since').fill('');
    await expect.poll(() => shown(page).count()).toBe(2);
    await screenshot(page, 'agent-logs-filter');
    await page.context().close();
  });
});
