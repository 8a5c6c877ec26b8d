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
import { launchBrowser, openPage, screenshot, startStudio } from './studio-harness.js';
import { watchPage } from './studio-fixture.js';

// Streamed model output in a real Chromium: a provider that streams part of its answer, then
// holds the rest until the test lets it go, so the page must show text the turn has not finished.
let browser: Browser;
let server: ControlServer;
let agents: ReturnType<typeof createWorkspaceAgents>;
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => {
  release = resolve;
});
const HOSTILE = `<img src=x onerror="window.__pwned='stream'">`;

const provider = {
  kind: 'scripted' as const,
  label: 'scripted (held streaming test provider, no model)',
  model: 'scripted',
  async createMessage(request: { onTextDelta?: (t: string) => void }) {
    request.onTextDelta?.('Thinking about ');
    request.onTextDelta?.(HOSTILE);
    await held;
    request.onTextDelta?.(' the answer.');
    return {
      content: [{ type: 'text' as const, text: `Thinking about ${HOSTILE} the answer.` }],
      stopReason: 'end_turn' as const,
      usage: { inputTokens: 0, outputTokens: 0 },
      model: 'scripted',
    };
  },
};

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'studio-stream-'));
  agents = createWorkspaceAgents({
    dir,
    open: createAgentOpener({ provider: (() => provider) as unknown as AgentOpenerOptions['provider'] }),
  });
  await agents.create!({ name: 'streamer' }, { kind: 'owner', id: 'test' });
  browser = await launchBrowser();
  server = await startStudio(agents);
});
afterAll(async () => {
  release();
  await browser?.close();
  await server?.close();
  agents?.close();
});

describe('streamed model output (Chromium)', () => {
  it('shows the text while the model is still answering, as inert text, then the finished turn', async () => {
    const page = await openPage(browser);
    const watch = watchPage(page);
    await page.goto(`${server.url}/#token=${server.token}`);
    await page.getByRole('button', { name: 'Start' }).waitFor();
    await page.locator('.live.on').waitFor();
    await page.getByLabel('message').fill('hello');
    await page.getByRole('button', { name: 'Send' }).click();
    const streaming = page.locator('.streaming');
    await streaming.getByText('Thinking about').waitFor();
    // The turn is not finished: the answer is not in the chat yet.
    expect(await page.locator('.turn.assistant').count()).toBe(0);
    expect(await streaming.textContent()).toContain(HOSTILE);
    expect(await streaming.locator('img').count()).toBe(0);
    await screenshot(page, 'agent-streaming');
    // While it streams, nothing was loaded or run from the fragments.
    expect(watch.problems).toEqual([]);
    release();
    await page.locator('.turn.assistant', { hasText: 'the answer.' }).waitFor();
    await expect.poll(() => streaming.count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await page.context().close();
  });
});
