import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startCliStudio, type CliStudio } from './cli-studio.js';
import { launchBrowser, openPage, screenshot } from './studio-harness.js';
import { watchPage } from './studio-fixture.js';
import { expectMainInert } from './expect-inert.js';
import { XSS_CORPUS, XSS_DOCUMENT } from './xss-corpus.js';

// Sandbox runs from the studio against the real `trust studio`: real bubblewrap runs started,
// streamed, killed and recorded; real egress decisions by the run's own proxy against a loopback
// peer; the sandbox's own validators for every problem. Needs bwrap and Chromium (fails without).
let browser: Browser;
let cli: CliStudio;
let peer: Server;
let peerPort = 0;
const peerSeen: string[] = [];

beforeAll(async () => {
  peer = createServer((req, res) => {
    peerSeen.push(req.url ?? '');
    res.end(`peer ok ${req.url}`);
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  peerPort = (peer.address() as { port: number }).port;
  browser = await launchBrowser();
  cli = await startCliStudio();
});
afterAll(async () => {
  await browser?.close();
  if (cli !== undefined) expect(await cli.stop()).toBe(0);
  await new Promise<void>((r) => peer?.close(() => r()));
});

const api = async (path: string) =>
  (await fetch(`${cli.url}/api/v1${path}`, { headers: { authorization: `Bearer ${cli.token}` } })).json() as Promise<
    // biome-ignore lint/suspicious/noExplicitAny: test reads loosely typed JSON
    any
  >;

async function openSandbox(): Promise<{ page: Page; problems: string[] }> {
  const page = await openPage(browser);
  const { problems } = watchPage(page);
  await page.goto(`${cli.url}/#token=${cli.token}`);
  await page.locator('nav button[data-view=sandbox]').click();
  await page.getByLabel('run request').waitFor();
  return { page, problems };
}

/** Replaces the request JSON and waits for the server's answer to it. */
async function setRequest(page: Page, doc: unknown, valid: boolean): Promise<void> {
  await page.getByLabel('run request').fill(JSON.stringify(doc, null, 2));
  await page.locator(`.policy-editor [data-valid="${valid}"]`).waitFor();
}

const output = (page: Page) => page.getByRole('log', { name: 'run output' }).textContent();

// Node is on /usr here; elsewhere its install directory must be granted read-only.
const nodeCaps = process.execPath.startsWith('/usr/') ? [] : [`fs:ro:${dirname(dirname(process.execPath))}`];
const fetchTwice = (port: number) =>
  `const u=new URL(process.env.HTTP_PROXY);const get=(url)=>new Promise((r)=>{const ` +
  `s=require('net').connect(+u.port,u.hostname,()=>s.write('GET '+url+' HTTP/1.1\\r\\nHost: '+new ` +
  `URL(url).host+'\\r\\nConnection: close\\r\\n\\r\\n'));let b='';s.on('data',(d)=>(b+=d));s.on('end',` +
  `()=>r(b.split('\\r\\n')[0]));s.on('error',(e)=>r('error '+e.code))});(async()=>{console.log('allowed:',` +
  `await get('http://127.0.0.1:${port}/allowed'));console.log('denied:',await ` +
  `get('http://denied.example/denied'))})()`;

describe('sandbox runs from the studio (Chromium, real bwrap)', () => {
  it(
    'starts a run from the form and streams its output while it runs; the run is recorded for the audit ' + 'timeline',
    async () => {
      const { page, problems } = await openSandbox();
      await page.getByLabel('command').fill(`sh -c "echo first-line; sleep 2; echo second-line"`);
      await page.locator('.policy-editor [data-valid="true"]').waitFor();
      expect(JSON.parse(await page.getByLabel('run request').inputValue()).argv).toEqual([
        'sh',
        '-c',
        'echo first-line; sleep 2; echo second-line',
      ]);
      await page.getByRole('button', { name: 'Start run' }).click();
      const panel = page.locator('.sandbox-run');
      await panel.waitFor();
      // Streamed: the first line is shown while the run is still running.
      await page.getByRole('log', { name: 'run output' }).getByText('first-line').waitFor();
      expect(await panel.getAttribute('data-state')).toBe('running');
      expect(await output(page)).not.toContain('second-line');
      await page.locator('.sandbox-run[data-state="exited"]').waitFor({ timeout: 20_000 });
      expect(await output(page)).toBe('first-line\nsecond-line\n');
      expect(await page.locator('.run-status').textContent()).toContain('exited 0');
      const id = (await panel.getAttribute('data-run'))!;
      // Recorded like `trust sandbox` runs, so the recorded-runs table and the audit timeline show it.
      const records = await api('/sandbox-runs');
      expect(records.runs.find((r: { id: string }) => r.id === id)).toMatchObject({
        exitCode: 0,
        argv: ['sh', '-c', 'echo first-line; sleep 2; echo second-line'],
      });
      const audit = await api('/audit');
      expect(
        audit.events.some(
          (e: { action: string; principal: { id: string } }) => e.action === 'sandbox.run' && e.principal.id === id,
        ),
      ).toBe(true);
      await screenshot(page, 'sandbox-run');
      expect(problems).toEqual([]);
      await page.context().close();
    },
  );

  it('gives a run the standard input typed in the form (the form grants stdin)', async () => {
    const { page, problems } = await openSandbox();
    await page.getByLabel('command').fill('cat');
    await page.getByLabel('standard input').fill('typed into the studio\n');
    const doc = JSON.parse(await page.getByLabel('run request').inputValue());
    expect(doc.stdin).toBe('typed into the studio\n');
    expect(doc.policy.capabilities).toContain('stdin');
    await page.locator('.policy-editor [data-valid="true"]').waitFor();
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.locator('.sandbox-run[data-state="exited"]').waitFor();
    expect(await output(page)).toContain('typed into the studio');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('kills a long run: the whole run ends at once and is shown as killed', async () => {
    const { page, problems } = await openSandbox();
    await page.getByLabel('command').fill('sleep 30');
    await page.locator('.policy-editor [data-valid="true"]').waitFor();
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.locator('.sandbox-run[data-state="running"]').waitFor();
    const started = Date.now();
    await page.getByRole('button', { name: 'Kill' }).click();
    await page.locator('.sandbox-run[data-state="exited"]').waitFor({ timeout: 10_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await page.locator('.run-status').textContent()).toContain('killed');
    const id = (await page.locator('.sandbox-run').getAttribute('data-run'))!;
    const run = (await api(`/sandbox/runs/${id}`)).run;
    expect(run).toMatchObject({ state: 'exited', argv: ['sleep', '30'] });
    const page1 = await api(`/sandbox/runs/${id}/events/0`);
    expect(page1.events.at(-1)).toMatchObject({ kind: 'exit', exit: { killed: true, code: null } });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it(
    'shows each egress decision as it happens: the allowed loopback peer and a denied host, linked to the ' + 'rule',
    async () => {
      const { page, problems } = await openSandbox();
      await setRequest(
        page,
        {
          argv: [process.execPath, '-e', fetchTwice(peerPort)],
          policy: { v: 1, capabilities: ['stdout', 'stderr', 'http', ...nodeCaps] },
          egress: { v: 1, name: 'studio-test', http: { allow: [`127.0.0.1:${peerPort}`] }, guard: { mode: 'default' } },
        },
        true,
      );
      // The form reads the JSON it did not write.
      expect(await page.getByLabel('network').inputValue()).toBe('http');
      expect(await page.getByLabel('allowed hosts').inputValue()).toBe(`127.0.0.1:${peerPort}`);
      await page.getByRole('button', { name: 'Start run' }).click();
      await page.locator('.sandbox-run[data-state="exited"]').waitFor({ timeout: 30_000 });
      expect(await output(page)).toContain('allowed: HTTP/1.1 200 OK');
      expect(await output(page)).toContain('denied: HTTP/1.1 403');
      expect(peerSeen).toContain('/allowed');
      expect(peerSeen).not.toContain('/denied');
      const allowed = page.locator('.run-egress tr[data-decision="allow"]');
      const denied = page.locator('.run-egress tr[data-decision="deny"]');
      expect(await allowed.count()).toBe(1);
      expect(await denied.count()).toBe(1);
      expect(await allowed.locator('.target').textContent()).toContain(`127.0.0.1:${peerPort}/allowed`);
      expect(await denied.textContent()).toContain('EGRESS_HOST_NOT_ALLOWED');
      expect(await denied.locator('.target').textContent()).toContain('denied.example');
      // The denial links to the rule that made it, in the run's own egress policy.
      const link = denied.locator('[data-rule-link]');
      expect(await link.textContent()).toBe('studio-test:http.allow');
      await link.click();
      const rule = page.locator('.run-policy [data-section="http.allow"]');
      expect(await rule.getAttribute('class')).toContain('highlight');
      expect(await rule.textContent()).toContain(`127.0.0.1:${peerPort}`);
      await screenshot(page, 'sandbox-egress');
      // And after: reopened from the list, the decisions are all there again.
      const id = (await page.locator('.sandbox-run').getAttribute('data-run'))!;
      await page.reload();
      await page.locator('nav button[data-view=sandbox]').click();
      await page.locator(`.studio-runs li[data-run="${id}"] button`).click();
      await page.locator('.sandbox-run[data-state="exited"]').waitFor();
      expect(await page.locator('.run-egress tr').count()).toBe(3);
      const record = (await api('/sandbox-runs')).runs.find((r: { id: string }) => r.id === id);
      expect(record.egressCounts).toEqual({ allowed: 1, denied: 1 });
      expect(record.violations).toEqual([expect.stringContaining('EGRESS_HOST_NOT_ALLOWED')]);
      // From the audit timeline: the run's denial links to the same rule of its egress policy.
      await page.locator('nav button[data-view=audit]').click();
      const row = page.locator('tr[data-log="sandbox-runs"][data-action="egress.connect"].denied', {
        hasText: 'denied.example',
      });
      await row.first().waitFor();
      await row.first().locator('[data-rule-link="http.allow"]').click();
      const fromAudit = row.first().locator('[data-section="http.allow"]');
      await fromAudit.waitFor();
      expect(await fromAudit.getAttribute('class')).toContain('highlight');
      expect(await fromAudit.textContent()).toContain(`127.0.0.1:${peerPort}`);
      await screenshot(page, 'sandbox-audit-rule');
      expect(problems).toEqual([]);
      await page.context().close();
    },
  );

  it('shows policy, egress and argv problems in place, from the sandbox validators, and starts nothing', async () => {
    const { page, problems } = await openSandbox();
    const before = (await api('/sandbox/runs')).runs.length;
    await setRequest(
      page,
      {
        argv: ['echo', 'a\u0000--ro-bind'],
        policy: { v: 1, capabilities: ['stdout', 'netwrok'], limits: { timeMs: -5 } },
        egress: { v: 1, htp: {} },
      },
      false,
    );
    const list = page.locator('.policy-editor [role=alert]');
    expect(await list.locator('li[data-path="argv.1"]').textContent()).toContain('SANDBOX_ARGV_INVALID');
    expect(await list.locator('li[data-path="policy.limits.timeMs"]').count()).toBe(1);
    expect(await list.locator('li[data-path="egress.htp"]').textContent()).toContain('did you mean "http"');
    expect(await page.getByLabel('run request').getAttribute('aria-invalid')).toBe('true');
    // Beside the field too: the argv problem under the command.
    expect(await page.locator('.start-form li[data-path="argv.1"]').count()).toBe(1);
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.locator('.policy-editor [role=alert] li[data-path="argv.1"]').waitFor();
    expect((await api('/sandbox/runs')).runs.length).toBe(before);
    // A capability typo alone (the schema passes, the capability parser does not).
    await setRequest(page, { argv: ['true'], policy: { v: 1, capabilities: ['netwrok'] } }, false);
    // The alert was already shown for the last request: wait for the new answer's problem.
    await list.locator('li[data-path^="policy.capabilities"]').first().waitFor();
    expect(await list.locator('li[data-path="argv.1"]').count()).toBe(0);
    expect(await list.textContent()).toContain('netwrok');
    await screenshot(page, 'sandbox-problems');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('the XSS corpus through run output, argv and policy problems is shown as text only', async () => {
    const { page, problems } = await openSandbox();
    await setRequest(page, { argv: ['printf', '%s', XSS_DOCUMENT], policy: { v: 1, capabilities: ['stdout'] } }, true);
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.locator('.sandbox-run[data-state="exited"]').waitFor({ timeout: 20_000 });
    expect(await output(page)).toBe(XSS_DOCUMENT);
    expect(await page.locator('.run-argv').textContent()).toContain(XSS_CORPUS[0]!.payload);
    const hostile: Record<string, unknown> = { v: 1, capabilities: XSS_CORPUS.map((c) => `fs:ro:/${c.payload}`) };
    for (const [i, c] of XSS_CORPUS.entries()) hostile[c.payload] = i;
    await setRequest(
      page,
      {
        argv: XSS_CORPUS.map((c) => c.payload),
        policy: hostile,
        egress: { v: 1, http: { allow: XSS_CORPUS.map((c) => c.payload) } },
      },
      false,
    );
    expect(await page.locator('.policy-editor .problem').count()).toBeGreaterThan(XSS_CORPUS.length);
    expect(await page.locator('.policy-editor [role=alert]').textContent()).toContain(XSS_CORPUS[0]!.payload);
    await expectMainInert(page);
    expect((await api('/csp-reports')).reports).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
