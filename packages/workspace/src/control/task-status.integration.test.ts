import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdf } from '@trust/agent-runtime';
import { createControlServer } from './control-server.js';
import { call } from './control-fixture.test-helper.js';
import { TASK_STATUS_VIEW, createWorkspaceAgents } from './workspace-agents.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('task states over the control API', () => {
  it('maps the file states one to one', () => {
    const views = Object.values(TASK_STATUS_VIEW);
    expect(new Set(views).size).toBe(views.length);
  });

  it('an approval acknowledged before a crash reopens as failed and is reported failed, not approved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'task-status-'));
    const adf = createAdf(join(dir, 'worker.adf'));
    const t = adf.tasks.create({
      tool: 'fs_write',
      args: { path: 'x' },
      origin: 'llm',
      status: 'pending_approval',
      requiresAuthorization: true,
    });
    const denied = adf.tasks.create({
      tool: 'fs_write',
      args: { path: 'y' },
      origin: 'llm',
      status: 'pending_approval',
      requiresAuthorization: true,
    });
    const cancelled = adf.tasks.create({
      tool: 'fs_write',
      args: { path: 'z' },
      origin: 'llm',
      status: 'pending_approval',
      requiresAuthorization: true,
      executorManaged: true,
    });
    // The owner approved (the tool started), then the runtime died before it finished.
    expect(adf.tasks.transition(t.id, 'pending_approval', 'running')).toBe(true);
    adf.tasks.transition(denied.id, 'pending_approval', 'denied', { error: 'not now' });
    adf.close();
    const agents = createWorkspaceAgents({ dir });
    cleanup.push(() => agents.close());
    const server = await createControlServer({ agents });
    cleanup.push(() => server.close());
    const res = await call(server.port, {
      path: '/api/v1/agents/worker/tasks',
      headers: { authorization: `Bearer ${server.token}` },
    });
    const byId = Object.fromEntries(
      (res.json().tasks as Array<{ id: string; status: string; error?: string; feedback?: string }>).map((x) => [
        x.id,
        x,
      ]),
    );
    expect(byId[t.id]).toMatchObject({ status: 'failed', error: 'runtime restarted while running' });
    expect(byId[denied.id]).toMatchObject({ status: 'denied', feedback: 'not now' });
    expect(byId[cancelled.id]).toMatchObject({ status: 'cancelled' });
  });
});
