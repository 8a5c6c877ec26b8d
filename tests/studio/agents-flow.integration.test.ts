import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createIdentity, type AdfFile } from '@trust/agent-runtime';
import { signAdfContent } from '@trust/agent-runtime/identity';
import { launchBrowser, openPage, screenshot } from './studio-harness.js';
import { startFixture, watchPage, type StudioFixture } from './studio-fixture.js';
import { XSS_DOCUMENT } from './xss-corpus.js';

// The agent details in a real Chromium against a real control server and real .adf agents: the
// file editor (CodeMirror), the config form, the runtime panels, and create from a template.
let browser: Browser;
let fx: StudioFixture;
let adf: AdfFile;
const EVIL_NAME = `evil/<img src=x onerror="window.__pwned='name'">.md`;

beforeAll(async () => {
  browser = await launchBrowser();
  fx = await startFixture([]);
  adf = ((await fx.agents.open('helper')) as unknown as { adf: AdfFile }).adf;
  adf.files.write('notes/readme.md', '# Readme\n');
  adf.files.write('locked.md', 'keep me');
  adf.files.setProtection('locked.md', 'read_only', 'owner');
  adf.files.write(EVIL_NAME, XSS_DOCUMENT);
  adf.files.write('race.md', 'before');
  // Runtime data, each from the real file: a trigger, a timer, an MCP server, an identity.
  const cfg = JSON.parse(JSON.stringify(adf.config())) as Record<string, unknown>;
  adf.setConfig({
    ...cfg,
    triggers: [{ type: 'on_file_change', scope: 'agent', filter: { watch: '<b>docs/**</b>' }, debounce_ms: 500 }],
    mcp: { servers: [{ name: 'gh', command: `gh-mcp <img src=x onerror="window.__pwned='mcp'">`, args: [] }] },
  });
  adf.timers.add({ schedule: { every_ms: 60_000 }, nextWakeAt: '2030-01-01T00:00:00.000Z' });
  const id = createIdentity();
  adf.meta.set('adf_did', id.did, { runtime: true, protection: 'readonly' });
  adf.outbox.insert({ from: 'helper', to: 'did:key:z6MkPeer', content: 'hello' });
});
afterAll(async () => {
  await browser?.close();
  await fx?.close();
});

async function openTab(tab: string): Promise<{ page: Page; watch: { problems: string[] } }> {
  const page = await openPage(browser);
  const watch = watchPage(page);
  await page.goto(`${fx.server.url}/#token=${fx.server.token}`);
  await page.getByRole('button', { name: 'Start' }).waitFor();
  await page.locator('.tabs button', { hasText: tab }).click();
  return { page, watch };
}

const editorText = (page: Page) =>
  page
    .locator('.code-editor .cm-content')
    .textContent()
    .then((t) => t ?? '');
const cspReports = () => fx.server.cspReports().map((r) => JSON.stringify(r));

describe('agents flow (Chromium, real control server and agent)', () => {
  it('edits a file in CodeMirror, saves it and reads it back; no console error, no CSP report', async () => {
    const before = cspReports().length;
    const { page, watch } = await openTab('editor');
    await page.getByLabel('file to edit').selectOption('notes/readme.md');
    await expect.poll(() => editorText(page)).toContain('# Readme');
    // CodeMirror is mounted and styled (its styles are a constructed sheet in its shadow root).
    const styled = await page.evaluate(
      `(() => { const r = document.querySelector('.code-editor').shadowRoot; return [r.adoptedStyleSheets.length,` +
        ` getComputedStyle(r.querySelector('.cm-editor')).display]; })()`,
    );
    expect(styled).toEqual([expect.any(Number), 'flex']);
    expect((styled as number[])[0]).toBeGreaterThan(0);
    expect(await page.locator('style').count()).toBe(0);
    await page.locator('.code-editor .cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('Edited in the studio.');
    await page.getByRole('button', { name: 'Save (owner, audited)' }).click();
    await page.getByText('notes/readme.md saved').waitFor();
    const back = await fx.api<{ file: { content: string } }>('GET', '/agents/helper/file-text/notes/readme.md');
    expect(back.json.file.content).toBe('# Readme\nEdited in the studio.');
    expect(adf.files.read('notes/readme.md')!.content.toString()).toBe('# Readme\nEdited in the studio.');

    await page.getByLabel('new file path').fill('docs/new.json');
    await page.getByRole('button', { name: 'New file' }).click();
    await page.locator('.code-editor .cm-content').click();
    await page.keyboard.type('{"a": 1}');
    await page.getByRole('button', { name: 'Save (owner, audited)' }).click();
    await page.getByText('docs/new.json saved').waitFor();
    expect(adf.files.read('docs/new.json')!.content.toString()).toMatch(/^\{"a": 1\}?$/);
    await screenshot(page, 'agent-editor');
    expect(watch.problems).toEqual([]);
    expect(cspReports().slice(before)).toEqual([]);
    await page.context().close();
  });

  it('a protected file opens read-only with its code; a file protected meanwhile is refused in place', async () => {
    const { page, watch } = await openTab('editor');
    await page.getByLabel('file to edit').selectOption('locked.md');
    const refused = page.locator('.file-editor .refused');
    await refused.waitFor();
    expect(await refused.textContent()).toContain('ADF_FILE_PROTECTED');
    expect(await page.locator('.code-editor .cm-content').getAttribute('contenteditable')).toBe('false');
    expect(await page.getByRole('button', { name: 'Save (owner, audited)' }).isDisabled()).toBe(true);

    await page.getByLabel('file to edit').selectOption('race.md');
    await expect.poll(() => editorText(page)).toContain('before');
    adf.files.setProtection('race.md', 'read_only', 'owner');
    await page.locator('.code-editor .cm-content').click();
    await page.keyboard.type('X');
    await page.getByRole('button', { name: 'Save (owner, audited)' }).click();
    const err = page.locator('.file-editor .form-result [role=alert]');
    await err.waitFor();
    expect(await err.textContent()).toContain('ADF_FILE_PROTECTED');
    expect(adf.files.read('race.md')!.content.toString()).toBe('before');
    // The only failed request is that refused save.
    expect(watch.problems.filter((p) => !p.includes('400'))).toEqual([]);
    await page.context().close();
  });

  it('config: a locked field is read-only with its reason; a schema error shows at its field', async () => {
    const { page } = await openTab('config');
    const locked = page.locator('.config-field[data-path="security.allow_local_fetch"]');
    await locked.waitFor();
    expect(await locked.locator('.lock-why').textContent()).toContain('one-time owner approval');
    expect(await page.getByLabel('security.allow_local_fetch', { exact: true }).isEditable()).toBe(false);
    expect(await locked.getByRole('button', { name: 'Set' }).count()).toBe(0);
    expect(await page.getByLabel('triggers', { exact: true }).isEditable()).toBe(false);

    const row = page.locator('.config-field[data-path="limits.max_sql_rows"]');
    await page.getByLabel('limits.max_sql_rows', { exact: true }).fill('-5');
    await row.getByRole('button', { name: 'Set' }).click();
    const err = row.locator('[role=alert]');
    await err.waitFor();
    expect(await err.textContent()).toMatch(/max_sql_rows/);
    await screenshot(page, 'agent-config-error');
    await page.getByLabel('limits.max_sql_rows', { exact: true }).fill('250');
    await row.getByRole('button', { name: 'Set' }).click();
    await row.getByText('limits.max_sql_rows updated (audited)').waitFor();
    expect(adf.config().limits.max_sql_rows).toBe(250);
    await page.context().close();
  });

  it('runtime panels show the real triggers, timers, MCP server, identity, review and mesh', async () => {
    // The owner reviews the file as it is now (the tests before changed it).
    signAdfContent(adf, createIdentity());
    const { page, watch } = await openTab('runtime');
    const panel = (name: string) => page.locator(`[data-panel="${name}"]`);
    await panel('identity').waitFor();
    const did = adf.meta.get('adf_did')!;
    expect(await panel('identity').textContent()).toContain(did);
    expect(await panel('identity').locator('.badge').textContent()).toBe('signed');
    expect(await panel('triggers').textContent()).toContain('on_file_change');
    expect(await panel('triggers').textContent()).toContain('debounce 500 ms');
    expect(await panel('timers').textContent()).toContain('{"every_ms":60000}');
    expect(await panel('mcp').textContent()).toContain('gh-mcp');
    expect(await panel('mesh').textContent()).toContain('did:key:z6MkPeer');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('.runtime-panels img, .runtime-panels b').count()).toBe(0);
    await screenshot(page, 'agent-runtime');
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('creates an agent from a template with a chosen provider', async () => {
    const { page, watch } = await openTab('chat');
    await page.getByText('Create from a template').click();
    await page.getByLabel('template', { exact: true }).selectOption('mail-responder');
    await page.getByLabel('template agent name').fill('mailbot');
    await page.getByLabel('provider').selectOption('anthropic');
    await page.getByLabel('model id').fill('claude-test');
    await page.getByLabel('API key env var').fill('ANTHROPIC_API_KEY');
    await page.getByRole('button', { name: 'Create from template' }).click();
    await page.locator('.detail-head h2', { hasText: 'mailbot' }).waitFor();
    const cfg = (await fx.api<{ config: { model: unknown; triggers: unknown } }>('GET', '/agents/mailbot/config')).json
      .config;
    expect(cfg.model).toMatchObject({
      provider: 'anthropic',
      model_id: 'claude-test',
      api_key_env: 'ANTHROPIC_API_KEY',
    });
    expect(cfg.triggers).toEqual([expect.objectContaining({ type: 'on_inbox' })]);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('the XSS corpus as a file name and as file contents stays text in the editor', async () => {
    const { page, watch } = await openTab('editor');
    await page.getByLabel('file to edit').selectOption(EVIL_NAME);
    await expect.poll(() => editorText(page)).toContain('window.__pwned');
    expect(await page.locator('.file-title').textContent()).toContain(EVIL_NAME);
    const live = await page.evaluate(
      `[...document.querySelector('.code-editor').shadowRoot.querySelectorAll('.cm-content :is(img, script, ` +
        `iframe, svg, object, embed, style, form, a)')].length`,
    );
    expect(live).toBe(0);
    expect(await page.locator('.file-editor img, .file-editor script, .file-editor iframe').count()).toBe(0);
    await page.waitForTimeout(300);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(cspReports().filter((r) => r.includes('127.0.0.1:9'))).toEqual([]);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });
});
