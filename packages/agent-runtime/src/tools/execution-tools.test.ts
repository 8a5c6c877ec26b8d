import { mkdtempSync } from 'node:fs';
import type { agentConfigSchema } from '../config/agent-config-schema.js';
import type { z } from 'zod';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import type { AdfFile } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import type { Approver } from '../gate/approvals.js';
import { createToolRegistry } from '../gate/tool-definition.js';
import type { ToolDefinition } from '../gate/tool-definition.js';
import { createToolGate } from '../gate/tool-gate.js';
import type { ToolGate } from '../gate/tool-gate.js';
import { createCodeRunner } from '../code/code-runner.js';
import { createCodeSandbox } from '../code/code-sandbox.js';
import { createExecutionTools } from './built-in-tools.js';
import type { WsClient } from './ws-tools.js';

const sandbox = createCodeSandbox();

function setup(
  options: { approver?: Approver; mutate?: (c: z.input<typeof agentConfigSchema>) => void; ws?: WsClient } = {},
): {
  adf: AdfFile;
  gate: ToolGate;
  said: string[];
} {
  const config: z.input<typeof agentConfigSchema> = structuredClone(defaultAgentConfig());
  config.tools = config.tools?.map((t) =>
    ['fs_delete', 'ws_connect', 'ws_send', 'ws_disconnect'].includes(t.name)
      ? { name: t.name, enabled: true, visible: true }
      : t,
  );
  options.mutate?.(config);
  const adf = createAdf(join(mkdtempSync(join(tmpdir(), 'exec-tools-')), 'a.adf'), { template: config });
  const said: string[] = [];
  let gate: ToolGate | undefined;
  const runner = createCodeRunner({ adf, sandbox, gate: () => gate! });
  const { tools } = createExecutionTools({
    gate: () => gate!,
    runner: () => runner,
    chat: () => ({ say: (t) => said.push(t), ask: async () => 'answer' }),
    agentId: 'test',
    ...(options.ws ? { ws: options.ws } : {}),
  });
  gate = createToolGate({
    adf,
    registry: createToolRegistry(tools as ToolDefinition<never>[]),
    ...(options.approver ? { approver: options.approver } : {}),
  });
  return { adf, gate, said };
}

describe('file tools', () => {
  it('write, append, edit, read, list, delete', async () => {
    const { adf, gate } = setup();
    await gate.call('fs_write', { path: 'a.md', mode: 'write', content: 'one two two' }, { origin: 'llm' });
    await gate.call('fs_write', { path: 'a.md', mode: 'append', content: ' three' }, { origin: 'llm' });
    await expect(
      gate.call('fs_write', { path: 'a.md', mode: 'edit', old_string: 'two', new_string: '2' }, { origin: 'llm' }),
    ).rejects.toHaveTrustCode('FS_EDIT_AMBIGUOUS');
    await gate.call(
      'fs_write',
      { path: 'a.md', mode: 'edit', old_string: 'two', new_string: '2', replace_all: true },
      { origin: 'llm' },
    );
    expect(await gate.call('fs_read', { path: 'a.md' }, { origin: 'llm' })).toMatchObject({
      content: 'one 2 2 three',
      truncated: false,
    });
    expect(await gate.call('fs_list', { prefix: 'a' }, { origin: 'llm' })).toMatchObject({ files: [{ path: 'a.md' }] });
    await gate.call('fs_delete', { path: 'a.md' }, { origin: 'llm' });
    await expect(gate.call('fs_read', { path: 'a.md' }, { origin: 'llm' })).rejects.toHaveTrustCode('ADF_NOT_FOUND');
    adf.close();
  });

  it('rejects unknown arguments, including privilege-looking ones', async () => {
    const { adf, gate } = setup();
    await expect(
      gate.call('fs_write', { path: 'a', mode: 'write', content: 'x', force: true }, { origin: 'llm' }),
    ).rejects.toHaveTrustCode('TOOL_ARGS_INVALID');
    await expect(gate.call('fs_delete', { path: 'a', _authorized: true }, { origin: 'llm' })).rejects.toHaveTrustCode(
      'TOOL_ARGS_RESERVED',
    );
    adf.close();
  });

  it('enforces limits.max_file_write_bytes', async () => {
    const { adf, gate } = setup({
      mutate: (c) => {
        c.limits!.max_file_write_bytes = 10;
      },
    });
    await expect(
      gate.call('fs_write', { path: 'a', mode: 'write', content: 'x'.repeat(11) }, { origin: 'llm' }),
    ).rejects.toHaveTrustCode('FS_WRITE_TOO_LARGE');
    adf.close();
  });

  it('read_only and no_delete need a one-time owner override; authorized code bypasses', async () => {
    const answers: string[] = [];
    const { adf, gate } = setup({
      approver: {
        request: async (r) => {
          answers.push(r.reason);
          return answers.length === 1 ? { decision: 'deny' } : { decision: 'approve' };
        },
      },
    });
    adf.files.write('ro.md', 'keep');
    adf.files.setProtection('ro.md', 'read_only', 'owner');
    await expect(
      gate.call('fs_write', { path: 'ro.md', mode: 'write', content: 'x' }, { origin: 'llm' }),
    ).rejects.toHaveTrustCode('ADF_FILE_PROTECTED');
    expect(adf.files.read('ro.md')?.content.toString()).toBe('keep');
    await gate.call('fs_write', { path: 'ro.md', mode: 'write', content: 'changed once' }, { origin: 'llm' });
    expect(adf.files.read('ro.md')?.content.toString()).toBe('changed once');
    expect(adf.files.read('ro.md')?.protection).toBe('read_only');
    expect(answers).toEqual(['protection', 'protection']);
    adf.files.write('nd.md', 'x');
    adf.files.setProtection('nd.md', 'no_delete', 'owner');
    await gate.call('fs_delete', { path: 'nd.md' }, { origin: 'authorized-code' });
    expect(adf.files.read('nd.md')).toBeUndefined();
    adf.close();
  });
});

describe('meta and timer tools', () => {
  it('meta protection: readonly refuses, increment only grows, runtime keys never change', async () => {
    const { adf, gate } = setup({ approver: { request: async () => ({ decision: 'deny' }) } });
    await gate.call('sys_set_meta', { key: 'note', value: 'a' }, { origin: 'llm' });
    expect(await gate.call('sys_get_meta', { key: 'note' }, { origin: 'llm' })).toEqual({ key: 'note', value: 'a' });
    adf.meta.set('counter', '5', { protection: 'increment' });
    await gate.call('sys_set_meta', { key: 'counter', value: '6' }, { origin: 'llm' });
    await expect(gate.call('sys_set_meta', { key: 'counter', value: '1' }, { origin: 'llm' })).rejects.toHaveTrustCode(
      'ADF_META_PROTECTED',
    );
    await expect(
      gate.call('sys_set_meta', { key: 'adf_did', value: 'did:key:zForged' }, { origin: 'authorized-code' }),
    ).rejects.toHaveTrustCode('ADF_META_PROTECTED');
    adf.close();
  });

  it('timers: validation, list, delete', async () => {
    const { adf, gate } = setup();
    await expect(gate.call('sys_set_timer', { kind: 'interval', ms: 10 }, { origin: 'llm' })).rejects.toHaveTrustCode(
      'TIMER_INVALID',
    );
    await expect(
      gate.call('sys_set_timer', { kind: 'delay', ms: 5, scope: 'system', lambda: 'not a ref' }, { origin: 'llm' }),
    ).rejects.toHaveTrustCode('TIMER_INVALID');
    const { id } = (await gate.call(
      'sys_set_timer',
      { kind: 'delay', ms: 60_000, payload: 'wake' },
      { origin: 'llm' },
    )) as { id: number };
    expect(((await gate.call('sys_list_timers', {}, { origin: 'llm' })) as { timers: unknown[] }).timers).toHaveLength(
      1,
    );
    await gate.call('sys_delete_timer', { id }, { origin: 'llm' });
    expect(((await gate.call('sys_list_timers', {}, { origin: 'llm' })) as { timers: unknown[] }).timers).toHaveLength(
      0,
    );
    adf.close();
  });
});

describe('chat, code and stub tools', () => {
  it('say and ask work from the loop and are refused to code', async () => {
    const { adf, gate, said } = setup();
    await gate.call('say', { text: 'hello' }, { origin: 'llm' });
    expect(said).toEqual(['hello']);
    expect(await gate.call('ask', { question: 'q?' }, { origin: 'llm' })).toEqual({ answer: 'answer' });
    const r = (await gate.call(
      'sys_code',
      {
        code:
          'const out = []; for (const t of ["say", "ask"]) { try { await adf[t]({ text: "x", question: "x" }); ' +
          'out.push("ran"); } catch (e) { out.push(e.code); } } return out;',
      },
      { origin: 'llm' },
    )) as { value: string[] };
    expect(r.value).toEqual(['EXCLUDED_TOOL', 'EXCLUDED_TOOL']);
    expect(said).toEqual(['hello']);
    adf.close();
  });

  it('sys_code from authorized code still runs unauthorized (no inherited authority)', async () => {
    const { adf, gate } = setup({
      mutate: (c) => {
        c.tools = c.tools!.map((t: { name: string }) => (t.name === 'fs_write' ? { ...t, restricted: true } : t));
      },
    });
    const r = (await gate.call(
      'sys_code',
      {
        code:
          'try { await adf.fs_write({ path: "x", mode: "write", content: "y" }); return "wrote"; } catch (e) { ' +
          'return e.code; }',
      },
      { origin: 'authorized-code' },
    )) as { value: string };
    expect(r.value).toBeTrustCode('REQUIRES_AUTHORIZED_CODE');
    adf.close();
  });

  it('unauthorized code cannot call an authorized lambda', async () => {
    const { adf, gate } = setup();
    adf.files.write('admin.js', 'function run() { return "admin"; }');
    adf.files.setAuthorized('admin.js', true, 'owner');
    const r = (await gate.call(
      'sys_code',
      { code: 'try { return await adf.sys_lambda({ target: "admin.js:run" }); } catch (e) { return e.code; }' },
      { origin: 'llm' },
    )) as { value: string };
    expect(r.value).toBeTrustCode('REQUIRES_AUTHORIZED_CALLER');
    adf.close();
  });

  it('msg_send says it is not implemented', async () => {
    const { adf, gate } = setup();
    await expect(gate.call('msg_send', {}, { origin: 'llm' })).rejects.toHaveTrustCode('NOT_IMPLEMENTED');
    adf.close();
  });

  it('ws_connect goes through the egress client with the caller as principal', async () => {
    const seen: Array<[string, string]> = [];
    const ws: WsClient = {
      webSocket: async (url, o) => {
        seen.push([url, o.principal.kind]);
        if (url.includes('7385')) throw Object.assign(new Error('protected port'), { code: 'EGRESS_PROTECTED_PORT' });
        return { send() {}, close() {}, addEventListener() {}, readyState: 1 };
      },
    };
    const { adf, gate } = setup({ ws });
    await expect(gate.call('ws_connect', { url: 'ws://127.0.0.1:7385/' }, { origin: 'llm' })).rejects.toHaveTrustCode(
      'EGRESS_PROTECTED_PORT',
    );
    const { id } = (await gate.call('ws_connect', { url: 'ws://127.0.0.1:9000/' }, { origin: 'llm' })) as {
      id: string;
    };
    expect(await gate.call('ws_send', { id, data: 'x' }, { origin: 'llm' })).toEqual({ received: [] });
    expect(await gate.call('ws_disconnect', { id }, { origin: 'llm' })).toMatchObject({ closed: id });
    expect(seen).toEqual([
      ['ws://127.0.0.1:7385/', 'llm'],
      ['ws://127.0.0.1:9000/', 'llm'],
    ]);
    adf.close();
  });
});
