import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf, openAdf, type AdfFile } from '../adf/adf-file.js';
import { sysGetConfigTool, sysUpdateConfigTool } from '../config/config-tools.js';
import type { ApprovalRequest, ApprovalResponse, Approver } from './approvals.js';
import { createToolGate, type ToolGate } from './tool-gate.js';
import { createToolRegistry, type ToolDefinition } from './tool-definition.js';

const echo: ToolDefinition<{ text: string }> = {
  name: 'echo',
  description: 'echo',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  run: (a, ctx) => ({ text: a.text, origin: ctx.origin, authorized: ctx.authorized }),
};
const lambda: ToolDefinition<{ target: string }> = {
  name: 'sys_lambda',
  description: 'run',
  inputSchema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
  authorizedTarget: (a) => a.target.split(':')[0],
  run: (a, ctx) => ({ ran: a.target, authorized: ctx.authorized }),
};

function setup(
  tools: unknown[],
  approver?: Approver,
  extra: Record<string, unknown> = {},
): { adf: AdfFile; gate: ToolGate } {
  const adf = createAdf(join(mkdtempSync(join(tmpdir(), 'gate-')), 'a.adf'), { template: { v: 1, tools, ...extra } });
  const gate = createToolGate({
    adf,
    registry: createToolRegistry([echo, lambda, sysGetConfigTool, sysUpdateConfigTool]),
    approvalTimeoutMs: 5_000,
    ...(approver ? { approver } : {}),
  });
  return { adf, gate };
}
const scripted = (
  ...answers: Array<ApprovalResponse | ((r: ApprovalRequest) => Promise<ApprovalResponse>)>
): Approver & { seen: ApprovalRequest[] } => {
  const seen: ApprovalRequest[] = [];
  return {
    seen,
    request: async (r) => {
      seen.push(r);
      const a = answers.shift();
      if (!a) throw new Error('no answer');
      return typeof a === 'function' ? a(r) : a;
    },
  };
};
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { code?: string }) => e.code,
  );

describe('tool gate', () => {
  it('runs an enabled tool and audits the decision', async () => {
    const { adf, gate } = setup([{ name: 'echo', enabled: true }]);
    expect(await gate.call('echo', { text: 'hi' }, { origin: 'llm' })).toEqual({
      text: 'hi',
      origin: 'llm',
      authorized: false,
    });
    expect(adf.audit.list({ action: 'tool.call' }).at(-1)).toMatchObject({
      target: 'echo',
      decision: 'allow',
      principal: { kind: 'llm' },
    });
    expect(adf.audit.verify().ok).toBe(true);
  });

  it('never reads authority from arguments', async () => {
    const { adf, gate } = setup([{ name: 'echo', enabled: true, restricted: true }]);
    expect(await codeOf(gate.call('echo', { text: 'x', _authorized: true }, { origin: 'code' }))).toBeTrustCode(
      'TOOL_ARGS_RESERVED',
    );
    expect(await codeOf(gate.call('echo', { text: 'x' }, { origin: 'code' }))).toBeTrustCode(
      'REQUIRES_AUTHORIZED_CODE',
    );
    expect(adf.audit.list({ action: 'tool.call' }).map((e) => e.code)).toEqual([
      'TOOL_ARGS_RESERVED',
      'REQUIRES_AUTHORIZED_CODE',
    ]);
  });

  it('authorization does not flow into a child of an unauthorized parent', async () => {
    const { gate } = setup([{ name: 'echo', enabled: true, restricted: true }]);
    expect(await gate.call('echo', { text: 'x' }, { origin: 'authorized-code' })).toMatchObject({ authorized: true });
    expect(
      await codeOf(gate.call('echo', { text: 'x' }, { origin: 'authorized-code', parentAuthorized: false })),
    ).toBeTrustCode('REQUIRES_AUTHORIZED_CODE');
  });

  it('validates arguments against the input schema', async () => {
    const { gate } = setup([{ name: 'echo', enabled: true }]);
    expect(await codeOf(gate.call('echo', { text: 1 }, { origin: 'llm' }))).toBeTrustCode('TOOL_ARGS_INVALID');
    expect(await codeOf(gate.call('echo', { text: 'a', extra: 1 }, { origin: 'llm' }))).toBeTrustCode(
      'TOOL_ARGS_INVALID',
    );
  });

  it('visibleTools lists enabled+visible registered tools only', () => {
    const { gate } = setup([
      { name: 'echo', enabled: true, visible: false },
      { name: 'sys_get_config', enabled: true, visible: true },
      { name: 'sys_lambda', enabled: false, visible: true },
    ]);
    expect(gate.visibleTools().map((t) => t.name)).toEqual(['sys_get_config']);
  });

  it('an enabled but invisible tool still runs', async () => {
    const { gate } = setup([{ name: 'echo', enabled: true, visible: false }]);
    expect(await gate.call('echo', { text: 'x' }, { origin: 'llm' })).toMatchObject({ text: 'x' });
  });
});

describe('human in the loop', () => {
  it('a restricted LLM call waits for approval and may run with modified args', async () => {
    const approver = scripted({ decision: 'approve', args: { text: 'edited' } });
    const { adf, gate } = setup([{ name: 'echo', enabled: true, restricted: true }], approver);
    expect(await gate.call('echo', { text: 'orig' }, { origin: 'llm' })).toMatchObject({ text: 'edited' });
    const [task] = adf.tasks.list();
    expect(task).toMatchObject({
      tool: 'echo',
      status: 'completed',
      requiresAuthorization: true,
      args: { text: 'edited' },
      approvalMeta: { reason: 'restricted', expires_at: expect.any(String) },
    });
    expect(adf.audit.list({ action: 'approval.resolve' }).at(-1)).toMatchObject({ decision: 'allow' });
  });

  it('modified args are re-validated and cannot smuggle reserved flags', async () => {
    const { gate } = setup(
      [{ name: 'echo', enabled: true, restricted: true }],
      scripted({ decision: 'approve', args: { text: 'x', _authorized: true } }),
    );
    expect(await codeOf(gate.call('echo', { text: 'x' }, { origin: 'llm' }))).toBeTrustCode('TOOL_ARGS_RESERVED');
  });

  it('a denial carries feedback to the model', async () => {
    const { adf, gate } = setup(
      [{ name: 'echo', enabled: true, restricted: true }],
      scripted({ decision: 'deny', feedback: 'not now' }),
    );
    await expect(gate.call('echo', { text: 'x' }, { origin: 'llm' })).rejects.toMatchObject({
      code: expect.toBeTrustCode('TOOL_APPROVAL_DENIED'),
      message: expect.stringContaining('not now'),
    });
    expect(adf.tasks.list()[0]?.status).toBe('denied');
  });

  it('no answer in time auto-denies', async () => {
    const adf = createAdf(join(mkdtempSync(join(tmpdir(), 'gate-')), 'a.adf'), {
      template: { v: 1, tools: [{ name: 'echo', enabled: true, restricted: true }] },
    });
    const gate = createToolGate({ adf, registry: createToolRegistry([echo]), approvalTimeoutMs: 20 });
    expect(await codeOf(gate.call('echo', { text: 'x' }, { origin: 'llm' }))).toBeTrustCode('TOOL_APPROVAL_TIMEOUT');
    expect(adf.tasks.list()[0]?.status).toBe('denied');
  });

  it('abort cancels the pending task', async () => {
    const { adf, gate } = setup([{ name: 'echo', enabled: true, restricted: true }]);
    const ctl = new AbortController();
    const p = gate.call('echo', { text: 'x' }, { origin: 'llm', signal: ctl.signal });
    await new Promise((r) => setTimeout(r, 5));
    ctl.abort();
    expect(await codeOf(p)).toBeTrustCode('TOOL_CALL_ABORTED');
    expect(adf.tasks.list()[0]?.status).toBe('cancelled');
  });

  it('a throwing approver denies (fail closed)', async () => {
    const { gate } = setup([{ name: 'echo', enabled: true, restricted: true }], {
      request: async () => {
        throw new Error('ui crashed');
      },
    });
    expect(await codeOf(gate.call('echo', { text: 'x' }, { origin: 'llm' }))).toBeTrustCode('TOOL_APPROVAL_DENIED');
  });

  it('only the owner or authorized code resolve a pending task', async () => {
    const { adf, gate } = setup([{ name: 'echo', enabled: true, restricted: true }]);
    const p = gate.call('echo', { text: 'x' }, { origin: 'llm' });
    await new Promise((r) => setTimeout(r, 5));
    const [task] = gate.pendingApprovals();
    expect(() => gate.resolveTask(task!.id, { decision: 'approve' }, 'code')).toThrowTrustError(
      'TASK_RESOLVE_FORBIDDEN',
    );
    expect(() => gate.resolveTask(task!.id, { decision: 'approve' }, 'llm')).toThrowTrustError(
      'TASK_RESOLVE_FORBIDDEN',
    );
    gate.resolveTask(task!.id, { decision: 'approve' }, 'owner');
    expect(await p).toMatchObject({ text: 'x' });
    expect(() => gate.resolveTask(task!.id, { decision: 'approve' }, 'owner')).toThrowTrustError('TASK_NOT_PENDING');
    expect(
      adf.audit.list({ action: 'approval.resolve' }).filter((e) => e.code === 'TASK_RESOLVE_FORBIDDEN'),
    ).toHaveLength(2);
  });

  it('"always approve" persists for unlocked tools and is refused for locked ones', async () => {
    const { adf, gate } = setup(
      [{ name: 'echo', enabled: true, restricted: true }],
      scripted({ decision: 'approve', always: true }),
    );
    await gate.call('echo', { text: 'x' }, { origin: 'llm' });
    expect(adf.config().tools.find((t) => t.name === 'echo')).toMatchObject({ restricted: false });

    const locked = setup([{ name: 'echo', enabled: true, restricted: true, locked: true }]);
    const p = locked.gate.call('echo', { text: 'x' }, { origin: 'llm' });
    await new Promise((r) => setTimeout(r, 5));
    const id = locked.gate.pendingApprovals()[0]!.id;
    expect(() => locked.gate.resolveTask(id, { decision: 'approve', always: true }, 'owner')).toThrowTrustError(
      'TASK_ALWAYS_APPROVE_REFUSED',
    );
    locked.gate.resolveTask(id, { decision: 'approve' }, 'owner');
    await p;
    expect(locked.adf.config().tools[0]).toMatchObject({ restricted: true, locked: true });
  });

  it('the approval prompt escapes untrusted text', async () => {
    const approver = scripted({ decision: 'deny' });
    const { gate } = setup([{ name: 'echo', enabled: true, restricted: true }], approver);
    await codeOf(gate.call('echo', { text: 'hi\u001b[2J\u202eevil' }, { origin: 'llm' }));
    expect(approver.seen[0]?.prompt).not.toMatch(/[\u001b\u202e]/);
    expect(approver.seen[0]?.prompt).toContain('\\u{202e}');
  });

  it('crash: running tasks fail, pending approvals are cancelled on reopen', async () => {
    const { adf, gate } = setup([{ name: 'echo', enabled: true, restricted: true }]);
    void gate.call('echo', { text: 'x' }, { origin: 'llm' }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 5));
    adf.close();
    const again = openAdf(adf.path);
    expect(again.tasks.list()[0]?.status).toBe('cancelled');
    again.close();
  });
});

describe('authorized code and lambdas', () => {
  it('an LLM call of an authorized file needs approval; unauthorized code is refused', async () => {
    const approver = scripted({ decision: 'approve' });
    const { adf, gate } = setup([{ name: 'sys_lambda', enabled: true }], approver);
    adf.files.write('gate.ts', 'export function go() {}');
    adf.files.setAuthorized('gate.ts', true, 'owner');
    expect(await gate.call('sys_lambda', { target: 'gate.ts:go' }, { origin: 'llm' })).toMatchObject({
      ran: 'gate.ts:go',
      authorized: false,
    });
    expect(approver.seen[0]?.reason).toBe('authorized-target');
    expect(await codeOf(gate.call('sys_lambda', { target: 'gate.ts:go' }, { origin: 'code' }))).toBeTrustCode(
      'REQUIRES_AUTHORIZED_CALLER',
    );
    expect(await gate.call('sys_lambda', { target: 'gate.ts:go' }, { origin: 'authorized-code' })).toMatchObject({
      authorized: true,
    });
  });
});

describe('sys_update_config and sys_get_config through the gate', () => {
  const base = [
    { name: 'sys_update_config', enabled: true },
    { name: 'sys_get_config', enabled: true },
    { name: 'echo', enabled: false },
    { name: 'sys_lambda', enabled: true, locked: true },
  ];

  it('toggles enabled on an unlocked tool and audits it', async () => {
    const { adf, gate } = setup(base);
    await gate.call('sys_update_config', { path: 'tools.echo.enabled', value: 'true' }, { origin: 'llm' });
    expect(adf.config().tools.find((t) => t.name === 'echo')?.enabled).toBe(true);
    expect(adf.audit.list({ action: 'config.update' }).at(-1)).toMatchObject({
      decision: 'allow',
      target: 'tools.echo.enabled',
    });
  });

  it('guard paths are hard-denied with no approval request', async () => {
    const approver = scripted();
    const { adf, gate } = setup(base, approver);
    for (const path of [
      'security.allow_unsigned',
      'security.require_middleware_authorization',
      'security.middleware.inbox',
      'security.fetch_middleware',
      'security',
    ]) {
      expect(
        await codeOf(gate.call('sys_update_config', { path, value: false }, { origin: 'authorized-code' })),
      ).toBeTrustCode('CONFIG_GUARD_PATH');
    }
    expect(approver.seen).toHaveLength(0);
    expect(adf.tasks.list()).toHaveLength(0);
  });

  it('a locked field becomes a one-time owner override, never persisted as a widening', async () => {
    const approver = scripted({ decision: 'approve' }, { decision: 'deny' });
    const { adf, gate } = setup(base, approver);
    const r = await gate.call(
      'sys_update_config',
      { path: 'security.allow_local_fetch', value: true },
      { origin: 'llm' },
    );
    expect(r).toMatchObject({ override: true });
    expect(adf.config().security.allow_local_fetch).toBe(true);
    expect(adf.config().locked_fields).toEqual([]);
    expect(approver.seen[0]?.reason).toBe('protection');
    expect(adf.audit.list({ action: 'override.use' }).at(-1)).toMatchObject({ decision: 'allow' });
    // the lock still holds for the next change
    expect(
      await codeOf(
        gate.call('sys_update_config', { path: 'security.allow_local_fetch', value: false }, { origin: 'llm' }),
      ),
    ).toBeTrustCode('CONFIG_LOCKED');
  });

  it('a guard path on a restricted sys_update_config is refused before any approval is asked', async () => {
    const approver = scripted({ decision: 'approve' });
    const { adf, gate } = setup([{ name: 'sys_update_config', enabled: true, restricted: true }], approver);
    expect(
      await codeOf(
        gate.call('sys_update_config', { path: 'security.allow_unsigned', value: false }, { origin: 'llm' }),
      ),
    ).toBeTrustCode('CONFIG_GUARD_PATH');
    expect(approver.seen).toHaveLength(0);
    expect(adf.tasks.list()).toHaveLength(0);
    expect(adf.audit.list({ action: 'tool.call' }).at(-1)).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('CONFIG_GUARD_PATH'),
    });
  });

  it('a locked tool declaration needs the override too', async () => {
    const { gate } = setup(base, scripted({ decision: 'deny' }));
    expect(
      await codeOf(
        gate.call('sys_update_config', { path: 'tools.sys_lambda.enabled', value: false }, { origin: 'llm' }),
      ),
    ).toBeTrustCode('CONFIG_LOCKED');
  });

  it('an invalid result is rolled back', async () => {
    const { adf, gate } = setup(base);
    const before = JSON.stringify(adf.config());
    expect(
      await codeOf(gate.call('sys_update_config', { path: 'limits.max_sql_rows', value: -5 }, { origin: 'llm' })),
    ).toBeTrustCode('CONFIG_INVALID_AFTER_UPDATE');
    expect(JSON.stringify(adf.config())).toBe(before);
  });

  it('sys_get_config redacts secrets', async () => {
    const { gate } = setup(base, undefined, {
      model: { provider: 'anthropic', model_id: 'm', api_key: 'sk-secret' },
      mcp: { servers: [{ name: 'gh', command: 'x', env: { GH_TOKEN: 'ghp_x' } }] },
    });
    const cfg = (await gate.call('sys_get_config', {}, { origin: 'llm' })) as {
      model: { api_key: string };
      mcp: { servers: Array<{ env: Record<string, string> }> };
    };
    expect(cfg.model.api_key).toBe('__redacted__');
    expect(cfg.mcp.servers[0]?.env['GH_TOKEN']).toBe('__redacted__');
    expect(JSON.stringify(cfg)).not.toContain('sk-secret');
  });
});
