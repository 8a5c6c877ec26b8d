import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createWorkspaceAgents, type ControlServer } from '@trust/workspace';
import { launchBrowser, openPage, screenshot, startStudio } from './studio-harness.js';
import { startCliStudio, type CliStudio } from './cli-studio.js';
import { watchPage } from './studio-fixture.js';
import { ACTIVE_ELEMENTS, expectMainInert } from './expect-inert.js';
import { XSS_CORPUS } from './xss-corpus.js';

// One audit timeline against the real `trust studio`: the demo agent's chain, the control
// server's edge log (a real refusal) and the demo's real sandbox run, each with its chain status.
let browser: Browser;
let cli: CliStudio;
let hostile: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;

const api = async (method: string, path: string, body?: string) =>
  fetch(`${cli.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${cli.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });

beforeAll(async () => {
  browser = await launchBrowser();
  cli = await startCliStudio();
  agents = createWorkspaceAgents({ dir: mkdtempSync(join(tmpdir(), 'studio-audit-')) });
  hostile = await startStudio(agents, {
    auditLogs: () => [
      {
        name: XSS_CORPUS[0]!.payload,
        kind: 'egress',
        chain: { ok: false, count: 1, brokenAt: 0, reason: XSS_CORPUS[1]!.payload },
        events: XSS_CORPUS.map((c, i) => ({
          time: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(),
          principal: { kind: 'peer' as const, id: c.payload },
          action: c.payload,
          target: c.payload,
          decision: 'deny' as const,
          rule: c.payload,
          code: c.payload,
          details: { payload: c.payload },
        })),
      },
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  if (cli !== undefined) expect(await cli.stop()).toBe(0);
  await hostile?.close();
  agents?.close();
});

describe('audit timeline (Chromium)', () => {
  it(
    'agents, the edge log and sandbox runs in one timeline, filterable by principal, action and ' + 'decision',
    async () => {
      // Real decisions: an owner chat and approval in the agent, a refusal at the server's edge.
      const sent = await api('POST', '/agents/demo-helper/chat', JSON.stringify({ text: 'remember the milk' }));
      expect(sent.status).toBe(200);
      const tasks = (await (await api('GET', '/tasks')).json()) as { tasks: { id: string }[] };
      expect((await api('POST', `/agents/demo-helper/tasks/${tasks.tasks[0]!.id}/approve`, '{}')).status).toBe(200);
      expect((await api('POST', '/agents/demo-helper/chat', '['.repeat(200) + ']'.repeat(200))).status).toBe(400);

      const page = await openPage(browser);
      const { problems } = watchPage(page);
      await page.goto(`${cli.url}/#token=${cli.token}`);
      await page.locator('nav button[data-view=audit]').click();
      await page.locator('li[data-log="control-edge"]').waitFor();
      expect(await page.locator('li[data-log="agent:demo-helper"] [data-chain]').getAttribute('data-chain')).toBe('ok');
      expect(await page.locator('li[data-log="control-edge"] [data-chain]').getAttribute('data-chain')).toBe('ok');
      expect(await page.locator('li[data-log="sandbox-runs"] [data-chain]').getAttribute('data-chain')).toBe('none');
      for (const log of ['agent:demo-helper', 'control-edge', 'sandbox-runs'])
        await page.locator(`tbody tr[data-log="${log}"]`).first().waitFor();

      // Decision: only denials, from several logs.
      await page.getByLabel('decision filter').selectOption('deny');
      const denied = page.locator('tbody tr');
      expect(await page.locator('tbody tr:has(.badge.ok)').count()).toBe(0);
      expect(await page.locator('tbody tr[data-action="control.request"]').textContent()).toContain('INPUT_TOO_DEEP');
      expect(await denied.count()).toBeGreaterThan(0);
      await screenshot(page, 'audit-denials');

      // Principal: the sandbox run's own rows only.
      await page.getByLabel('decision filter').selectOption('all');
      const runPrincipal = (await page.locator('tbody tr[data-action="sandbox.run"] td').nth(2).textContent())!;
      expect(runPrincipal).toMatch(/^process:/);
      await page.getByLabel('principal filter').selectOption(runPrincipal);
      const logs = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-log')));
      expect(logs.length).toBeGreaterThan(0);
      expect(new Set(logs)).toEqual(new Set(['sandbox-runs']));
      expect(await page.locator('tbody tr[data-action="sandbox.run"]').textContent()).toContain(
        '/bin/echo hello from the sandbox',
      );

      // Action: text filter across every log.
      await page.getByLabel('principal filter').selectOption('');
      await page.getByLabel('action filter').fill('approval');
      const actions = await page
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
      expect(actions.length).toBeGreaterThan(0);
      for (const a of actions) expect(a).toMatch(/approval/);
      await page.getByLabel('action filter').fill('');
      await screenshot(page, 'audit-timeline');
      expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
      await page.context().close();
    },
  );

  it('a tampered edge log shows as NOT verified, where it breaks', async () => {
    const file = join(cli.workspace, 'control-audit.jsonl');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    lines[0] = lines[0]!.replace('INPUT_TOO_DEEP', 'INPUT_FINE');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const page = await openPage(browser);
    await page.goto(`${cli.url}/#token=${cli.token}`);
    await page.locator('nav button[data-view=audit]').click();
    const badge = page.locator('li[data-log="control-edge"] [data-chain]');
    await badge.waitFor();
    expect(await badge.getAttribute('data-chain')).toBe('broken');
    expect(await badge.textContent()).toContain('at #0');
    expect(await page.locator('li[data-log="agent:demo-helper"] [data-chain]').getAttribute('data-chain')).toBe('ok');
    await page.context().close();
  });

  it('the XSS corpus in every field of a log stays text', async () => {
    const page = await openPage(browser);
    await page.goto(`${hostile.url}/#token=${hostile.token}`);
    await page.locator('nav button[data-view=audit]').click();
    await expect.poll(async () => page.locator('tbody tr').count()).toBe(XSS_CORPUS.length);
    await expectMainInert(page, ACTIVE_ELEMENTS.replace('svg', 'svg:not(.chart svg)'));
    expect(await page.locator('[data-chain="broken"]').textContent()).toContain(XSS_CORPUS[1]!.payload);
    expect(hostile.cspReports()).toEqual([]);
    await page.context().close();
  });
});
