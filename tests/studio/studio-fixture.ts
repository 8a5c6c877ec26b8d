// A real workspace for the studio flow tests: .adf agents with the real loop, tool gate and
// approval desk, a keyword model, and the control server serving the built studio.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  createAgentOpener,
  createWorkspaceAgents,
  type AgentOpenerOptions,
  type ControlServer,
  type ControlServerOptions,
} from '@trust/workspace';
import { createKeywordModel, type KeywordRule } from './keyword-model.js';
import { startStudio } from './studio-harness.js';

export interface StudioFixture {
  readonly server: ControlServer;
  readonly agents: ReturnType<typeof createWorkspaceAgents>;
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }>;
  close(): Promise<void>;
}

/** Starts a workspace with one agent `helper` whose fs_write is enabled, visible and restricted. */
export async function startFixture(
  rules: readonly KeywordRule[],
  extra: Partial<ControlServerOptions> = {},
): Promise<StudioFixture> {
  const model = createKeywordModel(rules, (result, isError) =>
    isError ? `The tool was refused: ${result.slice(0, 120)}` : 'Done.',
  );
  const dir = mkdtempSync(join(tmpdir(), 'studio-flow-'));
  const agents = createWorkspaceAgents({
    dir,
    open: createAgentOpener({ provider: (() => model) as unknown as AgentOpenerOptions['provider'] }),
  });
  const server = await startStudio(agents, extra);
  const api = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as T };
  };
  const created = await api('POST', '/agents', { name: 'helper', description: 'demo agent' });
  if (created.status !== 200) throw new Error(`creating the agent failed: ${JSON.stringify(created.json)}`);
  const restricted = await api('PATCH', '/agents/helper/tools/fs_write', {
    enabled: true,
    visible: true,
    restricted: true,
  });
  if (restricted.status !== 200) throw new Error(`restricting fs_write failed: ${JSON.stringify(restricted.json)}`);
  return {
    server,
    agents,
    api,
    async close() {
      await server.close();
      agents.close();
    },
  };
}

/** Records console errors and failed responses (status >= 400) of a page from now on. */
export function watchPage(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return { problems };
}
