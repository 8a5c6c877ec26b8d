import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { appendSandboxRun, sandboxRunRecord, sandboxRunsFile } from '../../packages/cli/src/sandbox-runs.js';
import { startCliStudio, type CliStudio } from './cli-studio.js';
import { launchBrowser, openPage, screenshot } from './studio-harness.js';
import { watchPage } from './studio-fixture.js';

// A denial of a sandbox run the running studio did not start (recorded by `trust sandbox`, with
// the CLI's own record builder): the record keeps the rule's name but not the egress policy, so
// the audit timeline says the rule is unknown instead of showing some other policy.
let browser: Browser;
let cli: CliStudio;

beforeAll(async () => {
  browser = await launchBrowser();
  cli = await startCliStudio();
  // The demo workspace lives in TRUST_HOME/demo; the run log is TRUST_HOME/sandbox-runs.jsonl.
  appendSandboxRun(
    sandboxRunsFile(dirname(cli.workspace)),
    sandboxRunRecord({
      runId: 'cli-run-1',
      argv: ['curl', 'http://denied.example/'],
      policy: { capabilities: ['http'], limits: {} },
      exit: { code: 1, signal: null, timedOut: false, durationMs: 12, violations: [] },
      egress: [
        {
          principal: { kind: 'process', id: 'cli-run-1' },
          action: 'egress.http',
          target: 'http://denied.example/',
          decision: 'deny',
          rule: 'cli-policy:http.allow',
          code: 'EGRESS_HOST_NOT_ALLOWED',
        },
      ],
      startedAt: new Date(),
    }),
  );
});
afterAll(async () => {
  await browser?.close();
  if (cli !== undefined) expect(await cli.stop()).toBe(0);
});

describe('denial → rule for runs not started from this studio (Chromium, real trust studio)', () => {
  it('says "rule unknown: run not started from this studio", with the rule name it does know', async () => {
    const page = await openPage(browser);
    const watch = watchPage(page);
    await page.goto(`${cli.url}/#token=${cli.token}`);
    await page.locator('nav button[data-view=audit]').click();
    const row = page.locator('tr[data-log="sandbox-runs"][data-action="egress.connect"].denied', {
      hasText: 'denied.example',
    });
    await row.first().waitFor();
    await row.first().locator('[data-rule-link="http.allow"]').click();
    const unknown = row.first().locator('[data-rule-unknown]');
    await unknown.waitFor();
    expect(await unknown.textContent()).toContain('rule unknown: run not started from this studio');
    expect(await unknown.textContent()).toContain('cli-policy:http.allow');
    expect(await row.first().locator('.run-policy').count()).toBe(0);
    expect(watch.problems).toEqual([]);
    await screenshot(page, 'audit-rule-unknown');
    await page.context().close();
  });
});
