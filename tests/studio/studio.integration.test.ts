import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  createAgentOpener,
  createWorkspaceAgents,
  type AgentOpenerOptions,
  type ControlServer,
} from '@trust/workspace';
import { createKeywordModel } from './keyword-model.js';
import { launchBrowser, openPage, screenshot, startStudio, indexHtml } from './studio-harness.js';

// The real runtime end to end: a workspace of .adf files, the real loop, tool gate and approval
// desk, a deterministic model, the control server serving the built studio, real Chromium.
let browser: Browser;
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
const model = createKeywordModel(
  [
    {
      when: 'save the plan',
      reply: [
        { type: 'text', text: 'I will save the plan with **fs_write**.' },
        {
          type: 'tool_use',
          id: '',
          name: 'fs_write',
          input: { path: 'notes/plan.md', mode: 'write', content: '<b>not html</b> & "quoted"' },
        },
      ],
    },
    {
      when: 'add a step',
      reply: [
        {
          type: 'tool_use',
          id: '',
          name: 'fs_write',
          input: { path: 'notes/plan.md', mode: 'append', content: 'rm -rf everything' },
        },
      ],
    },
    {
      when: 'rewrite the plan',
      reply: [
        {
          type: 'tool_use',
          id: '',
          name: 'fs_write',
          input: { path: 'notes/plan.md', mode: 'write', content: 'delete everything' },
        },
      ],
    },
    {
      when: 'the docs',
      reply: [{ type: 'text', text: 'Here is a [safe link](https://example.org/docs) and `code`.' }],
    },
  ],
  (result, isError) => (isError ? `The tool was refused: ${result.slice(0, 120)}` : 'Done: the plan is saved.'),
);
const auth = () => ({ authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });

beforeAll(async () => {
  browser = await launchBrowser();
  agents = createWorkspaceAgents({
    dir: mkdtempSync(join(tmpdir(), 'studio-ws-')),
    open: createAgentOpener({ provider: (() => model) as unknown as AgentOpenerOptions['provider'] }),
  });
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
      {
        id: 'r1',
        command: 'python3 build.py',
        policy: { fs: ['./out'], net: ['pypi.org'] },
        exitCode: 0,
        violations: [],
        egress: [{ target: 'pypi.org:443', decision: 'allow', rule: 'net:pypi.org' }],
        startedAt: new Date().toISOString(),
      },
      {
        id: 'r2',
        command: 'curl http://169.254.169.254/',
        policy: { net: [] },
        exitCode: 7,
        violations: ['egress denied: metadata address'],
        egress: [{ target: '169.254.169.254:80', decision: 'deny', rule: 'block-link-local' }],
        startedAt: new Date().toISOString(),
      },
    ],
  });
  // The demo workspace: one agent whose fs_write needs the owner's approval from the loop.
  const created = await fetch(`${server.url}/api/v1/agents`, {
    method: 'POST',
    headers: auth(),
    body: JSON.stringify({ name: 'helper', description: 'demo agent' }),
  });
  if (created.status !== 200) throw new Error(`creating the demo agent failed: ${await created.text()}`);
  const restricted = await fetch(`${server.url}/api/v1/agents/helper/tools/fs_write`, {
    method: 'PATCH',
    headers: auth(),
    body: JSON.stringify({ enabled: true, visible: true, restricted: true }),
  });
  if (restricted.status !== 200) throw new Error(`restricting fs_write failed: ${await restricted.text()}`);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  agents?.close();
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
    await page.getByText('fs_write · requested').waitFor();
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
    await page.getByText('fs_write · done').waitFor();
    await page.getByText('Done: the plan is saved.').waitFor();
    await screenshot(page, 'agents-chat');

    await page.getByRole('button', { name: 'Audit' }).click();
    await page.locator('tr[data-action="approval.resolve"]').waitFor();
    expect(await page.locator('tr[data-action="approval.resolve"]').textContent()).toContain('fs_write');
    expect(await page.locator('tr[data-action="approval.resolve"]').textContent()).toContain('allow');
    expect(await page.locator('[data-chain]').getAttribute('data-chain')).toBe('ok');
    expect(await page.locator('.chart svg rect').count()).toBeGreaterThan(0);
    await screenshot(page, 'audit');

    const audit = (await (await fetch(`${server.url}/api/v1/agents/helper/audit`, { headers: auth() })).json()) as {
      events: { action: string; target: string; decision: string }[];
    };
    expect(audit.events.filter((e) => e.target === 'fs_write').map((e) => `${e.action}:${e.decision}`)).toEqual([
      'config.tool:allow',
      'approval.request:deny',
      'approval.resolve:allow',
    ]);
    const file = (await (
      await fetch(`${server.url}/api/v1/agents/helper/files/notes/plan.md`, { headers: auth() })
    ).json()) as { file: { content: string } };
    expect(file.file.content).toBe('<b>not html</b> & "quoted"');
    await page.context().close();
  });

  it('approvals arrive live over the event stream, and deny carries feedback', async () => {
    const page = await openPage(browser);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'Approvals' }).click();
    await page.getByText('Nothing waits for you.').waitFor();
    await page.locator('.live.on').waitFor();
    // Another client (the CLI, say) makes the agent ask; this page never reloads or polls.
    const res = await fetch(`${server.url}/api/v1/agents/helper/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'add a step' }),
    });
    expect(res.status).toBe(200);
    const card = page.locator('article.task');
    await card.waitFor();
    expect(await card.locator('.tool').textContent()).toBe('fs_write');
    expect(await card.locator('textarea.args').inputValue()).toContain('rm -rf everything');
    await card.getByPlaceholder('why not, or what to do instead').fill('never delete files');
    await card.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('never delete files').waitFor();
    const tasks = (await (
      await fetch(`${server.url}/api/v1/tasks`, { headers: { authorization: `Bearer ${server.token}` } })
    ).json()) as { tasks: { tool: string; status: string; feedback?: string }[] };
    expect(tasks.tasks.filter((t) => t.status === 'denied')).toEqual([
      expect.objectContaining({ tool: 'fs_write', feedback: 'never delete files' }),
    ]);

    await page.getByRole('button', { name: 'Agents' }).click();
    await page.getByText('The tool was refused').waitFor();
    await page.getByLabel('message').fill('and the docs?');
    await page.getByRole('button', { name: 'Send' }).click();
    const link = page.locator('.md a', { hasText: 'safe link' });
    await link.waitFor();
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await link.getAttribute('target')).toBe('_blank');
    await page.context().close();
  });

  it("approve with modified arguments: the owner's edit is what runs", async () => {
    const page = await openPage(browser);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByLabel('message').fill('rewrite the plan');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Approvals' }).click();
    const card = page.locator('article.task');
    await card.waitFor();
    await card
      .locator('textarea.args')
      .fill(JSON.stringify({ path: 'notes/plan.md', mode: 'write', content: 'keep everything' }));
    await card.getByRole('button', { name: 'Approve modified' }).click();
    await page.getByText('Nothing waits for you.').waitFor();
    await expect
      .poll(
        async () =>
          (
            (await (
              await fetch(`${server.url}/api/v1/agents/helper/files/notes/plan.md`, { headers: auth() })
            ).json()) as { file: { content: string } }
          ).file.content,
      )
      .toBe('keep everything');
    await page.context().close();
  });

  it('tools & config, plugins and sandbox runs views render', async () => {
    const page = await openPage(browser);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'Tools & config' }).click();
    await page.getByLabel('fs_read locked').waitFor();
    await page.getByLabel('fs_read locked').click();
    await page.getByText('declaration is locked: the agent cannot change it').first().waitFor();
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${server.url}/api/v1/agents/helper/tools`, { headers: auth() })).json()) as {
              tools: { name: string; locked: boolean }[];
            }
          ).tools.find((t) => t.name === 'fs_read')!.locked,
      )
      .toBe(true);
    await page.getByText('security.allow_unsigned').waitFor();
    expect(await page.locator('pre').first().textContent()).toContain('"model"');
    await screenshot(page, 'tools');
    await page.getByRole('button', { name: 'Plugins' }).click();
    await page.locator('tr[data-import="wasi:sockets/tcp"]').getByText('would be refused').waitFor();
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
