import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  appendSandboxRun,
  recordEgressPolicy,
  sandboxRunRecord,
  sandboxRunsFile,
  type FinishedRun,
} from '@trust/workspace';
import { startCliStudio, type CliStudio } from './cli-studio.js';
import { launchBrowser, openPage, screenshot } from './studio-harness.js';
import { watchPage } from './studio-fixture.js';

// Denials of sandbox runs the running studio did not start (recorded by `trust sandbox`, with the
// CLI's own record builder, before this studio started): a record that keeps its egress policy
// opens the rule in that policy; an old record (the rule's name, no policy) says the rule is
// unknown instead of showing some other policy.
let browser: Browser;
let cli: CliStudio;

beforeAll(async () => {
  browser = await launchBrowser();
  cli = await startCliStudio();
  // The demo workspace lives in TRUST_HOME/demo; the run log is TRUST_HOME/sandbox-runs.jsonl.
  const run = (runId: string, host: string, egressPolicy?: FinishedRun['egressPolicy']): FinishedRun => ({
    runId,
    argv: ['curl', `http://${host}/`],
    policy: { capabilities: ['http'], limits: {} },
    exit: { code: 1, signal: null, timedOut: false, durationMs: 12, violations: [] },
    egress: [
      {
        principal: { kind: 'process', id: runId },
        action: 'egress.http',
        target: `http://${host}/`,
        decision: 'deny',
        rule: 'cli-policy:http.allow',
        code: 'EGRESS_HOST_NOT_ALLOWED',
      },
    ],
    ...(egressPolicy === undefined ? {} : { egressPolicy }),
    startedAt: new Date(),
  });
  const file = sandboxRunsFile(dirname(cli.workspace));
  appendSandboxRun(file, sandboxRunRecord(run('cli-run-1', 'denied.example')));
  appendSandboxRun(
    file,
    sandboxRunRecord(
      run(
        'cli-run-2',
        'refused.example',
        recordEgressPolicy({ v: 1, http: { allow: ['only-this.example'], deny: ['<img src=x onerror=alert(1)>'] } }),
      ),
    ),
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

  it('opens the rule in the policy a recorded run kept, with no studio having started it', async () => {
    const page = await openPage(browser);
    const watch = watchPage(page);
    await page.goto(`${cli.url}/#token=${cli.token}`);
    await page.locator('nav button[data-view=audit]').click();
    const row = page.locator('tr[data-log="sandbox-runs"][data-action="egress.connect"].denied', {
      hasText: 'refused.example',
    });
    await row.first().waitFor();
    await row.first().locator('[data-rule-link="http.allow"]').click();
    const policy = row.first().locator('.run-policy');
    await policy.waitFor();
    expect(await row.first().locator('[data-rule-unknown]').count()).toBe(0);
    const rule = policy.locator('.rule-row.highlight');
    expect(await rule.getAttribute('data-section')).toBe('http.allow');
    expect(await rule.textContent()).toContain('only-this.example');
    // The policy's own text stays text.
    expect(await policy.textContent()).toContain('<img src=x onerror=alert(1)>');
    expect(await page.locator('.run-policy img').count()).toBe(0);
    expect(watch.problems).toEqual([]);
    await screenshot(page, 'audit-rule-recorded');
    await page.context().close();
  });
});
