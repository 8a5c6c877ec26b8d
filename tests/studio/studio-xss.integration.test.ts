import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createAdf, defaultAgentConfig } from '@trust/agent-runtime';
import {
  createAgentOpener,
  createWorkspaceAgents,
  type AgentOpenerOptions,
  type ControlServer,
} from '@trust/workspace';
import { createKeywordModel } from './keyword-model.js';
import { launchBrowser, openPage, screenshot, startStudio } from './studio-harness.js';
import { XSS_DOCUMENT } from './xss-corpus.js';
import { watchPage } from './studio-fixture.js';

// The corpus reaches the studio the three ways attackers have: as model output (through the real
// loop), as an inbound message in adf_inbox, and as a file in the agent's store.
let browser: Browser;
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'studio-xss-'));
  const adf = createAdf(join(dir, 'helper.adf'), { template: defaultAgentConfig({ name: 'helper' }) });
  adf.inbox.insert({
    from: 'did:key:z6MkAttacker',
    to: 'did:key:z6MkHelper',
    subject: 'invoice',
    content: XSS_DOCUMENT,
  });
  adf.files.write('inbound/evil.md', XSS_DOCUMENT);
  adf.close();
  const model = createKeywordModel([{ when: 'summarise', reply: [{ type: 'text', text: XSS_DOCUMENT }] }], () => 'ok');
  agents = createWorkspaceAgents({
    dir,
    open: createAgentOpener({ provider: (() => model) as unknown as AgentOpenerOptions['provider'] }),
  });
  browser = await launchBrowser();
  server = await startStudio(agents);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  agents?.close();
});

/** Asserts that what is rendered in `.md` blocks is inert. */
async function assertInert(page: Page): Promise<void> {
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
  const md = page.locator('.md');
  expect(await md.count()).toBeGreaterThan(0);
  expect(
    await page.locator('.md :is(script, iframe, object, embed, style, svg, math, form, meta, base, button)').count(),
  ).toBe(0);
  const attrs = (await page.evaluate(
    `[...document.querySelectorAll('.md *')].flatMap((el) => [...el.attributes].map((a) => a.name))`,
  )) as string[];
  expect(attrs.filter((a) => a.startsWith('on') || a === 'style' || a === 'srcdoc' || a === 'formaction')).toEqual([]);
  const links = (await page.evaluate(
    `[...document.querySelectorAll('.md a')].map((a) => ({ href: a.getAttribute('href'), rel: ` +
      `a.getAttribute('rel'), target: a.getAttribute('target') }))`,
  )) as { href: string | null; rel: string; target: string }[];
  expect(links.length).toBeGreaterThan(0);
  for (const l of links) {
    if (l.href !== null) expect(l.href).toMatch(/^(https?:|mailto:)/i);
    expect(l.rel).toBe('noopener noreferrer');
    expect(l.target).toBe('_blank');
  }
  // Clicking every link must neither run script nor navigate this page.
  const before = page.url();
  for (const a of await page.locator('.md a:not([href])').all()) await a.click();
  expect(page.url()).toBe(before);
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
}

async function cspReports(): Promise<string[]> {
  return server.cspReports().map((r) => JSON.stringify(r));
}

describe('XSS corpus in the studio (Chromium, real CSP)', () => {
  it('as LLM output in the chat: inert, images dropped to their alt text, nothing requested', async () => {
    const page = await openPage(browser);
    const watch = watchPage(page);
    // Rendered text loads nothing: no image request, to the closed port or to the studio's own origin.
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByLabel('message').fill('summarise the page');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('image exfiltration').waitFor();
    await assertInert(page);
    expect(await page.locator('.md').allTextContents()).toContainEqual(expect.stringContaining('[image: leak]'));
    expect(requests.filter((u) => u.includes('127.0.0.1:9') || new URL(u).pathname === '/x')).toEqual([]);
    expect(watch.problems).toEqual([]);
    await screenshot(page, 'xss-chat');
    await page.context().close();
  });

  it('as an inbound message and as a file: inert', async () => {
    const page = await openPage(browser);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'inbox' }).click();
    await page.locator('.message .md').waitFor();
    await assertInert(page);
    await page.getByRole('button', { name: 'files' }).click();
    await page.getByRole('button', { name: 'inbound/evil.md' }).click();
    await page.locator('.file-view .md').waitFor();
    await assertInert(page);
    await page.context().close();
  });

  it('the CSP alone stops script that got past the sanitiser, and reports it', async () => {
    const page = await openPage(browser);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'Start' }).waitFor();
    const before = server.cspReports().length;
    // Simulate a sanitiser bypass: raw HTML with a handler, and an inline script, straight into the DOM.
    // (String eval is not tested here: code run through the DevTools protocol is exempt from CSP.)
    await page.evaluate(`
      document.body.insertAdjacentHTML('beforeend', '<img src="/nothing.png" onerror="window.__pwned=\\'handler\\'">');
      document.body.insertAdjacentHTML('beforeend', '<img src="http://127.0.0.1:9/img-leak.png">');
      const s = document.createElement('script'); s.textContent = "window.__pwned='inline'"; document.body.append(s);
    `);
    await expect.poll(() => server.cspReports().length - before).toBeGreaterThanOrEqual(2);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    const kinds = (await cspReports()).slice(before).join('\n');
    expect(kinds).toMatch(/script-src/);
    // A remote image that got past the sanitiser is blocked and reported too.
    await expect
      .poll(async () => (await cspReports()).some((r) => r.includes('img-src') && r.includes('127.0.0.1:9')))
      .toBe(true);
    await page.context().close();
  });
});
