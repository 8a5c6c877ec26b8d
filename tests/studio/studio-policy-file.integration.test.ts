import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, screenshot } from './studio-harness.js';
import { startCliStudio, type CliStudio } from './cli-studio.js';
import { watchPage } from './studio-fixture.js';

// The policy editor opens and saves the workspace's egress-policy.json (the policy plugins with
// network grants run under) through a real `trust studio`: a save lands on disk whole, a text the
// validator refuses is not written, and a save over a file changed meanwhile is refused (409).
let browser: Browser;
let cli: CliStudio;
beforeAll(async () => {
  browser = await launchBrowser();
  cli = await startCliStudio();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await cli?.stop();
});

const POLICY = JSON.stringify({ v: 1, name: 'saved-here', http: { allow: ['api.example.com'] } }, null, 2);

describe('policy file (Chromium, real trust studio)', () => {
  it('opens the workspace policy, saves it, refuses an invalid text and a stale save', async () => {
    const file = join(cli.workspace, 'egress-policy.json');
    const page = await openPage(browser);
    const { problems } = watchPage(page);
    await page.goto(`${cli.url}/#token=${cli.token}`);
    await page.locator('nav button[data-view=policy]').click();
    await page.getByRole('button', { name: 'Open workspace policy' }).click();
    await page.locator(`[data-policy-file="${file}"]`).waitFor();
    const editor = page.getByLabel('policy text');

    await editor.fill(JSON.stringify({ v: 1, htp: {} }));
    await page.locator('[data-save-policy]').click();
    await page.locator('.error', { hasText: 'CONTROL_BAD_REQUEST' }).first().waitFor();
    expect(existsSync(file)).toBe(false);

    await editor.fill(POLICY);
    await page.locator('[data-save-policy]').click();
    await page
      .getByRole('status')
      .filter({ hasText: `saved to ${file}` })
      .waitFor();
    expect(readFileSync(file, 'utf8')).toBe(POLICY);
    await screenshot(page, 'policy-file-saved');

    writeFileSync(file, JSON.stringify({ v: 1, name: 'edited elsewhere' }));
    await editor.fill(POLICY.replace('saved-here', 'second'));
    await page.locator('[data-save-policy]').click();
    await page.locator('.error', { hasText: 'CONTROL_CONFLICT' }).first().waitFor();
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify({ v: 1, name: 'edited elsewhere' }));

    await page.getByRole('button', { name: 'Open workspace policy' }).click();
    await expect.poll(() => editor.inputValue()).toBe(JSON.stringify({ v: 1, name: 'edited elsewhere' }));
    await page.close();
    expect(problems.filter((p) => !p.includes('409') && !p.includes('400'))).toEqual([]);
  }, 120_000);
});
