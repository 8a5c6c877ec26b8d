import { copyFileSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createAdf, createScriptedProvider } from '@trust/agent-runtime';
import { createAgentOpener, createWorkspaceAgents, type ControlServer } from '@trust/workspace';
import { launchBrowser, openPage, screenshot, startStudio } from './studio-harness.js';
import { watchPage } from './studio-fixture.js';

// The MCP panel shows each server's live connection from the running agent: a real MCP server
// process (the runtime's echo fixture, owner-installed on the host), a server whose command does
// not exist (failed, with its error) and one the runtime never reached (not started).
const fixture = realpathSync(
  join(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    'packages',
    'agent-runtime',
    'src',
    'mcp',
    'fixtures',
    'echo-mcp-server.mjs',
  ),
);
let browser: Browser;
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;

beforeAll(async () => {
  browser = await launchBrowser();
  const dir = mkdtempSync(join(tmpdir(), 'studio-mcp-'));
  // A copy beside the workspace (it has no dependencies), so the screenshot shows no checkout path.
  const echo = join(dir, 'echo-mcp-server.mjs');
  copyFileSync(fixture, echo);
  createAdf(join(dir, 'tooler.adf'), {
    template: {
      v: 1,
      name: 'tooler',
      mcp: {
        servers: [
          { name: 'echo', command: process.execPath, args: [echo], capabilities: [] },
          { name: 'broken', command: `/nonexistent/<img src=x onerror="window.__pwned='mcp'">`, args: [] },
          { name: 'later', command: process.execPath, args: [echo] },
        ],
      },
    },
  }).close();
  agents = createWorkspaceAgents({
    dir,
    open: createAgentOpener({
      provider: () => createScriptedProvider([]),
      mcp: () => ({ installedBy: () => 'owner', runOn: () => 'host', connectTimeoutMs: 60_000 }),
    }),
  });
  server = await startStudio(agents);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  agents?.close();
});

describe('MCP live state (Chromium, real control server, real MCP server)', () => {
  it('agent not running, then connected / failed with its error / connected anyway after Start', async () => {
    const page = await openPage(browser);
    const watch = watchPage(page);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'Start' }).waitFor();
    await page.locator('.tabs button', { hasText: 'runtime' }).click();
    const cell = (n: number) => page.locator('[data-panel=mcp] tbody tr').nth(n).locator('[data-mcp-live]');
    await cell(0).waitFor();
    for (const n of [0, 1, 2]) expect(await cell(n).getAttribute('data-mcp-live')).toBe('agent-not-running');
    expect(await cell(0).textContent()).toContain('agent not running');

    await page.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => cell(0).getAttribute('data-mcp-live')).toBe('connected');
    expect(await cell(0).textContent()).toMatch(/connected host; [1-9]\d* tools/);
    expect(await cell(1).getAttribute('data-mcp-live')).toBe('failed');
    expect(await cell(1).textContent()).toContain('MCP_CONNECT_FAILED');
    // Every server starts on its own: the one after a failed server still connects.
    await expect.poll(() => cell(2).getAttribute('data-mcp-live')).toBe('connected');
    // The hostile command comes back in the error as text only.
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('[data-panel=mcp] img').count()).toBe(0);
    expect(watch.problems).toEqual([]);
    await screenshot(page, 'agent-mcp-live');
    await page.context().close();
  });
});
