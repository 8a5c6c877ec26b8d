import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { ControlServer } from '@trust/agent-runtime';
import { createDemoAgents } from './demo-workspace.js';
import { indexHtml, launchBrowser, openPage, screenshot, startStudio } from './studio-harness.js';

let browser: Browser;
let server: ControlServer;
const agents = createDemoAgents({
  script: [
    { kind: 'tool', tool: 'fs_write', args: { path: 'notes/plan.md', content: '<b>not html</b> & "quoted"' }, say: 'I will save the plan with **fs_write**.', result: 'wrote notes/plan.md (27 bytes)' },
    { kind: 'tool', tool: 'adf_shell', args: { command: 'rm -rf ./cache' }, say: 'I need a shell.', result: 'not run' },
    { kind: 'say', text: 'Here is a [safe link](https://example.org/docs) and `code`.' },
  ],
  inbox: [{ id: 'm1', from: 'did:key:z6MkPeer', to: 'did:key:z6MkHelper', time: new Date().toISOString(), subject: 'hello', content: 'Hi **helper**, see <https://example.org>.', stamps: { message_verified: true } }],
  files: { 'notes/readme.md': '# Notes\n\nA file the agent keeps.', 'lib/tool.js': 'export default () => 1;' },
});

beforeAll(async () => {
  browser = await launchBrowser();
  server = await startStudio(agents, {
    plugins: () => [
      {
        name: 'csv-tools',
        version: '1.2.0',
        capabilities: [
          { name: 'net:api.example.org:443', risk: 'medium', note: 'can send data to this host' },
          { name: 'fs.read:./data', risk: 'low' },
        ],
        signature: { status: 'valid', signer: 'did:key:z6MkSigner' },
        imports: [
          { name: 'wasi:http/outgoing-handler', granted: true },
          { name: 'wasi:filesystem/types', granted: true },
          { name: 'wasi:sockets/tcp', granted: false },
        ],
      },
    ],
    sandboxRuns: () => [
      { id: 'r1', command: 'python3 build.py', policy: { fs: ['./out'], net: ['pypi.org'] }, exitCode: 0, violations: [], egress: [{ target: 'pypi.org:443', decision: 'allow', rule: 'net:pypi.org' }], startedAt: new Date().toISOString() },
      { id: 'r2', command: 'curl http://169.254.169.254/', policy: { net: [] }, exitCode: 7, violations: ['egress denied: metadata address'], egress: [{ target: '169.254.169.254:80', decision: 'deny', rule: 'block-link-local' }], startedAt: new Date().toISOString() },
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('studio in Chromium against a real control server', () => {
  it('the built page has no inline script', () => {
    const html = indexHtml();
    expect(html).toMatch(/<script type="module" crossorigin src="\.\/assets\/[^"]+\.js"><\/script>/);
    expect(html.replace(/<script[^>]*src="[^"]+"[^>]*><\/script>/g, '')).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it('chat → restricted tool → approve in the UI → result and audit event', async () => {
    const page = await openPage(browser);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'Start' }).waitFor();
    // The token left the address bar at once, and is only in this tab's session storage.
    expect(page.url()).toBe(`${server.url}/`);
    expect(await page.evaluate('location.href')).not.toContain(server.token);
    expect(await page.evaluate("sessionStorage.getItem('trust.control-token')")).toBe(server.token);

    await page.getByLabel('message').fill('Please save the plan');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('waiting for approval').waitFor();
    await page.getByRole('button', { name: 'Approvals' }).click();
    const card = page.locator('article.task');
    await card.waitFor();
    expect(await card.locator('.tool').textContent()).toBe('fs_write');
    // Untrusted argument text is shown as text, never as HTML.
    expect(await card.locator('textarea.args').inputValue()).toContain('<b>not html</b> & \\"quoted\\"');
    expect(await card.locator('b').count()).toBe(0);
    await screenshot(page, 'approvals');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Nothing waits for you.').waitFor();

    await page.getByRole('button', { name: 'Agents' }).click();
    await page.getByText('wrote notes/plan.md (27 bytes)').waitFor();
    await page.getByText('Done: the tool ran after your approval.').waitFor();
    await screenshot(page, 'agents-chat');

    await page.getByRole('button', { name: 'Audit' }).click();
    await page.locator('tr[data-action="tool.call"]').waitFor();
    expect(await page.locator('tr[data-action="tool.call"]').textContent()).toContain('fs_write');
    expect(await page.locator('[data-chain]').getAttribute('data-chain')).toBe('ok');
    expect(await page.locator('.chart svg rect').count()).toBeGreaterThan(0);
    await screenshot(page, 'audit');

    const audit = agents.audit();
    expect(audit.map((e) => `${e.action}:${e.decision}`)).toEqual(['approval.request:deny', 'approval.resolve:allow', 'tool.call:allow']);
    await page.context().close();
  });

  it('approvals arrive live over the event stream, and deny carries feedback', async () => {
    const page = await openPage(browser);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'Approvals' }).click();
    await page.getByText('Nothing waits for you.').waitFor();
    await page.locator('.live.on').waitFor();
    // Another client (the CLI, say) makes the agent ask; this page never reloads or polls.
    const res = await fetch(`${server.url}/api/v1/agents/helper/chat`, { method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'clean up the disk' }) });
    expect(res.status).toBe(200);
    const card = page.locator('article.task');
    await card.waitFor();
    expect(await card.locator('.tool').textContent()).toBe('adf_shell');
    await card.getByPlaceholder('why not, or what to do instead').fill('never delete files');
    await card.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('never delete files').waitFor();
    const tasks = (await (await fetch(`${server.url}/api/v1/tasks`, { headers: { authorization: `Bearer ${server.token}` } })).json()) as { tasks: { tool: string; status: string; feedback?: string }[] };
    expect(tasks.tasks.find((t) => t.tool === 'adf_shell')).toMatchObject({ status: 'denied', feedback: 'never delete files' });

    await page.getByRole('button', { name: 'Agents' }).click();
    await page.getByLabel('message').fill('and the docs?');
    await page.getByRole('button', { name: 'Send' }).click();
    const link = page.locator('.md a', { hasText: 'safe link' });
    await link.waitFor();
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await link.getAttribute('target')).toBe('_blank');
    await page.context().close();
  });

  it('tools & config, plugins and sandbox runs views render', async () => {
    const page = await openPage(browser);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'Tools & config' }).click();
    await page.getByText('locked in code: egress stays under the owner').waitFor();
    await page.getByLabel('fs_read restricted').click();
    await expect.poll(async () => ((await (await fetch(`${server.url}/api/v1/agents/helper/tools`, { headers: { authorization: `Bearer ${server.token}` } })).json()) as { tools: { restricted: boolean }[] }).tools[0]!.restricted).toBe(true);
    await page.getByText('security.allow_unsigned').waitFor();
    expect(await page.locator('pre').first().textContent()).toContain('[redacted]');
    await screenshot(page, 'tools');
    await page.getByRole('button', { name: 'Plugins' }).click();
    await page.getByText('wasi:sockets/tcp').waitFor();
    await screenshot(page, 'plugins');
    await page.getByRole('button', { name: 'Sandbox runs' }).click();
    await page.getByText('egress denied: metadata address').waitFor();
    await screenshot(page, 'sandbox');
    await page.context().close();
  });

  it.each([
    ['no token', ''],
    ['a wrong token', '#token=' + 'W'.repeat(43)],
  ])('with %s the page shows "not authorised" and no data', async (_n, hash) => {
    const page = await openPage(browser);
    const apiAnswers: number[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/')) apiAnswers.push(r.status());
    });
    await page.goto(`${server.url}/${hash}`);
    await page.locator('[data-state="not-authorised"]').waitFor();
    const text = await page.locator('body').textContent();
    expect(text).toContain('Not authorised');
    expect(text).not.toContain('helper');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(apiAnswers.every((s) => s === 401)).toBe(true);
    if (hash === '') await screenshot(page, 'not-authorised');
    await page.context().close();
  });
});
