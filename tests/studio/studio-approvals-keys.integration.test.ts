import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, screenshot } from './studio-harness.js';
import { startFixture, watchPage, type StudioFixture } from './studio-fixture.js';

// Approvals answered from the keyboard, against the real loop and approval desk: j/k move, a
// approves, d denies with the feedback typed, and a dangerous tool asks again (Enter / Esc).
let browser: Browser;
let fx: StudioFixture;

beforeAll(async () => {
  browser = await launchBrowser();
  fx = await startFixture([
    {
      when: 'save the plan',
      reply: [
        { type: 'tool_use', id: '', name: 'fs_write', input: { path: 'plan.md', mode: 'write', content: 'plan' } },
      ],
    },
    { when: 'delete the draft', reply: [{ type: 'tool_use', id: '', name: 'fs_delete', input: { path: 'draft.md' } }] },
  ]);
  if ((await fx.api('POST', '/agents', { name: 'writer' })).status !== 200) throw new Error('creating writer failed');
  for (const [agent, tool] of [
    ['writer', 'fs_write'],
    ['helper', 'fs_delete'],
  ]) {
    const r = await fx.api('PATCH', `/agents/${agent}/tools/${tool}`, {
      enabled: true,
      visible: true,
      restricted: true,
    });
    if (r.status !== 200) throw new Error(`restricting ${tool} failed: ${JSON.stringify(r.json)}`);
  }
});
afterAll(async () => {
  await browser?.close();
  await fx?.close();
});

const tasks = async () =>
  (await fx.api('GET', '/tasks')).json.tasks as { agent: string; tool: string; status: string; feedback?: string }[];
const pendingOf = async (agent: string) => (await tasks()).filter((t) => t.agent === agent && t.status === 'pending');

async function openApprovals(): Promise<{ page: Page; problems: string[] }> {
  const page = await openPage(browser);
  const { problems } = watchPage(page);
  await page.goto(`${fx.server.url}/#token=${fx.server.token}`);
  await page.locator('.live.on').waitFor();
  await page.getByRole('button', { name: /^Approvals/ }).click();
  return { page, problems };
}

describe('keyboard approvals (Chromium, real loop)', () => {
  it('empty state says what to do next', async () => {
    const { page, problems } = await openApprovals();
    await page.getByText('Nothing waits for you.').waitFor();
    expect(await page.locator('.empty').textContent()).toContain('Mark tools restricted in Tools & config');
    await page.keyboard.press('?');
    await page.getByRole('note').getByText('approve').waitFor();
    await screenshot(page, 'approvals-empty');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('j moves, d denies with feedback, a approves: all from the keyboard', async () => {
    const { page, problems } = await openApprovals();
    expect((await fx.api('POST', '/agents/helper/chat', { text: 'save the plan' })).status).toBe(200);
    expect((await fx.api('POST', '/agents/writer/chat', { text: 'save the plan' })).status).toBe(200);
    await expect.poll(async () => page.locator('article.task').count()).toBe(2);
    // The first request took the focus by itself.
    await expect.poll(async () => page.evaluate(`document.activeElement?.getAttribute('aria-current')`)).toBe('true');
    const first = (await page.locator('article.task').first().getAttribute('aria-label'))!;
    await page.keyboard.press('j');
    const second = page.locator('article.task[aria-current="true"]');
    expect(await second.getAttribute('aria-label')).not.toBe(first);
    const secondAgent = (await second.locator('.agent').textContent())!;
    // f: write feedback; Esc gives the keys back to the card; d denies with it.
    await page.keyboard.press('f');
    await page.keyboard.type('not now, ask me tomorrow');
    await page.keyboard.press('Escape');
    await page.keyboard.press('d');
    await expect
      .poll(async () => (await tasks()).find((t) => t.agent === secondAgent && t.status === 'denied')?.feedback)
      .toBe('not now, ask me tomorrow');
    await expect.poll(async () => page.locator('article.task').count()).toBe(1);
    const firstAgent = secondAgent === 'helper' ? 'writer' : 'helper';
    await page.locator('article.task').focus();
    await page.keyboard.press('a');
    await expect.poll(async () => (await pendingOf(firstAgent)).length).toBe(0);
    await page.getByText('Nothing waits for you.').waitFor();
    expect(
      (await tasks()).filter((t) => t.agent === firstAgent && t.tool === 'fs_write').map((t) => t.status),
    ).not.toContain('pending');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('a restricted dangerous tool asks again: Esc keeps it waiting, Enter approves', async () => {
    const { page, problems } = await openApprovals();
    expect((await fx.api('POST', '/agents/helper/chat', { text: 'delete the draft' })).status).toBe(200);
    const card = page.locator('article.task');
    await card.waitFor();
    expect(await card.locator('.tool').textContent()).toBe('fs_delete');
    await card.focus();
    await page.keyboard.press('a');
    const dialog = page.getByRole('alertdialog', { name: 'confirm approving fs_delete' });
    await dialog.waitFor();
    await screenshot(page, 'approvals-confirm');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await pendingOf('helper')).map((t) => t.tool)).toEqual(['fs_delete']);
    await page.keyboard.press('a');
    await dialog.waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await pendingOf('helper')).length).toBe(0);
    expect((await tasks()).find((t) => t.tool === 'fs_delete')?.status).not.toBe('denied');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
