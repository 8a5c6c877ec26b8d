import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createWorkspaceAgents, type ControlServer } from '@trust/workspace';
import { launchBrowser, openPage, screenshot, startStudio } from './studio-harness.js';
import { watchPage } from './studio-fixture.js';
import { ACTIVE_ELEMENTS, expectMainInert } from './expect-inert.js';
import { XSS_CORPUS } from './xss-corpus.js';

// The egress policy editor against a real control server: the core validator's problems in
// place, and a live check whose steps are the ones `trust egress check --policy` prints.
let browser: Browser;
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
const dir = mkdtempSync(join(tmpdir(), 'studio-policy-'));
const LOCAL_POLICY = JSON.stringify(
  { v: 1, name: 'local', http: { allow: ['127.0.0.1:9'], methods: ['GET'] } },
  null,
  2,
);

beforeAll(async () => {
  browser = await launchBrowser();
  agents = createWorkspaceAgents({ dir });
  server = await startStudio(agents);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  agents?.close();
});

async function openPolicy(): Promise<{ page: Page; problems: string[] }> {
  const page = await openPage(browser);
  const { problems } = watchPage(page);
  await page.goto(`${server.url}/#token=${server.token}`);
  await page.locator('nav button[data-view=policy]').click();
  await page.getByLabel('policy text').waitFor();
  return { page, problems };
}

/** The built CLI's own `egress check --json` on the same policy and URL. */
function cliCheck(
  policyText: string,
  url: string,
): Promise<{ steps: { step: string; ok: boolean; detail: string }[]; allow: boolean }> {
  const file = join(dir, `policy-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, policyText);
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@trust', 'cli', 'bin', 'trust.cjs');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'egress', 'check', url, '--policy', file, '--json'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('exit', () =>
      resolve(
        (JSON.parse(out) as { result: { steps: { step: string; ok: boolean; detail: string }[]; allow: boolean } })
          .result,
      ),
    );
  });
}

const uiSteps = (page: Page) =>
  page.locator('.steps li').evaluateAll((lis) =>
    lis.map((li) => ({
      step: li.getAttribute('data-step'),
      ok: li.classList.contains('ok'),
      detail: li.querySelector('.detail')?.textContent ?? '',
    })),
  );

describe('egress policy editor (Chromium, real validator and guard)', () => {
  it("shows the validator's problems in place, under the editor, with the fix", async () => {
    const { page, problems } = await openPolicy();
    await page.locator('[data-valid="true"]').waitFor();
    const editor = page.getByLabel('policy text');
    await editor.fill(
      JSON.stringify({ v: 1, htp: { allow: ['api.github.com'] }, tcp: { allow: ['db.example.com:99999'] } }, null, 2),
    );
    const list = page.locator('.policy-editor [role=alert]');
    await list.waitFor();
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    const typo = list.locator('li[data-path="htp"]');
    expect(await typo.textContent()).toContain('POLICY_UNKNOWN_KEY');
    expect(await typo.textContent()).toContain('did you mean "http"');
    expect(await list.locator('li[data-path^="tcp.allow"]').count()).toBe(1);
    const box = (await editor.boundingBox())!;
    const at = (await list.boundingBox())!;
    expect(at.y).toBeGreaterThanOrEqual(box.y + box.height);
    expect(at.y - (box.y + box.height)).toBeLessThan(40);
    await screenshot(page, 'policy-problems');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('checks a URL step by step, the same steps as trust egress check --policy', async () => {
    const { page, problems } = await openPolicy();
    await page.getByLabel('policy text').fill(LOCAL_POLICY);
    await page.locator('[data-valid="true"]').waitFor();
    for (const [url, allow] of [
      ['http://127.0.0.1:9/x', true],
      ['http://127.0.0.1:10/', false],
      ['http://169.254.169.254/latest/meta-data/', false],
    ] as const) {
      await page.getByLabel('URL to check').fill(url);
      await page.getByRole('button', { name: 'Check' }).click();
      await page.locator(`.check-result[data-allow="${allow}"]`).waitFor();
      const cli = await cliCheck(LOCAL_POLICY, url);
      expect(cli.allow).toBe(allow);
      expect(await uiSteps(page)).toEqual(cli.steps);
      if (url.includes('127.0.0.1:10')) {
        expect(await page.locator('li[data-step="policy"]').getAttribute('class')).toContain('fail');
        await screenshot(page, 'policy-check-denied');
      }
    }
    expect(await page.locator('li[data-step="policy"]').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('the XSS corpus in a policy (as keys and values) comes back in problems as text only', async () => {
    const { page } = await openPolicy();
    const hostile: Record<string, unknown> = { v: 1 };
    XSS_CORPUS.forEach((c, i) => {
      hostile[c.payload] = i;
    });
    hostile['http'] = { allow: XSS_CORPUS.map((c) => c.payload) };
    await page.getByLabel('policy text').fill(JSON.stringify(hostile));
    await page.locator('.policy-editor [role=alert]').waitFor();
    expect(await page.locator('.problem').count()).toBeGreaterThan(XSS_CORPUS.length);
    await expectMainInert(page, ACTIVE_ELEMENTS.replace('form', 'form:not(.inline)'));
    expect(server.cspReports()).toEqual([]);
    await page.context().close();
  });
});
