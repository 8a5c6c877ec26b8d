import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import type { agentConfigSchema } from '../config/agent-config-schema.js';
import type { z } from 'zod';
import { createCodeRunner, parseLambdaRef } from '../code/code-runner.js';
import { createCodeSandbox } from '../code/code-sandbox.js';
import { openAgent } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import type { ModelRequest, TextBlock } from '../providers/model-provider.js';
import type { ScriptedStep } from '../providers/scripted-provider.js';
import { LOOP_NOTE_ROLE } from './code-methods.js';

// The code-only adf.* methods through a real agent: gate, QuickJS sandbox, scripted model.

/** A config as written to a file: partial sections are filled with defaults when parsed. */
type Cfg = z.input<typeof agentConfigSchema>;
function agentWith(steps: ScriptedStep[] = [], mutate: (c: Cfg) => void = () => {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'code-methods-')), 'a.adf');
  const config: Cfg = structuredClone(defaultAgentConfig());
  config.tools = config.tools?.map((t) => (t.name === 'fs_write' ? { ...t, restricted: true } : t));
  mutate(config);
  createAdf(path, { template: config }).close();
  const provider = createScriptedProvider(steps);
  return { agent: openAgent(path, { provider }), provider };
}
const use = (id: string, name: string, input: Record<string, unknown>): ScriptedStep => ({
  content: [{ type: 'tool_use', id, name, input }],
});
const say = (text: string): ScriptedStep => ({ content: [{ type: 'text', text }] });
const textsOf = (req: ModelRequest) => {
  const m = req.messages[req.messages.length - 1]!;
  return typeof m.content === 'string'
    ? [m.content]
    : m.content.filter((b) => b.type === 'text').map((b) => (b as TextBlock).text);
};

describe('code-only methods are never tools of the model', () => {
  it.each(['model_invoke', 'task_resolve', 'loop_inject'])(
    '%s: refused to the loop and never advertised, even when declared',
    async (name) => {
      const { agent } = agentWith([], (c) => {
        c.tools!.push({ name, enabled: true, visible: true });
      });
      await expect(agent.gate.call(name, {}, { origin: 'llm' })).rejects.toHaveTrustCode('CODE_ONLY_METHOD');
      expect(agent.gate.visibleTools().map((t) => t.name)).not.toContain(name);
      expect(agent.gate.visibleTools().map((t) => t.name)).toContain('sys_lambda');
      agent.close();
    },
  );

  it('undeclared, they are simply not tools of the model', async () => {
    const { agent } = agentWith();
    for (const name of ['model_invoke', 'task_resolve', 'loop_inject'])
      await expect(agent.gate.call(name, {}, { origin: 'llm' })).rejects.toHaveTrustCode('TOOL_NOT_DECLARED');
    agent.close();
  });

  it('a code_execution flag turns a method off for code', async () => {
    const { agent } = agentWith([], (c) => {
      c.code_execution = { model_invoke: false };
    });
    const r = await agent.runner.runCode(
      'try { await adf.model_invoke({ prompt: "x" }); } catch (e) { return e.code; }',
      { authorized: false, principalId: 'sys_code' },
    );
    expect(r).toMatchObject({ ok: true, value: 'CODE_METHOD_DISABLED' });
    agent.close();
  });
});

describe('adf.model_invoke', () => {
  it('makes one tool-less call through the agent provider, audited, with max_tokens capped', async () => {
    const { agent, provider } = agentWith([say('forty-two')], (c) => {
      c.model!.max_tokens = 100;
      c.instructions = 'SECRET INSTRUCTIONS';
    });
    const r = await agent.runner.runCode(
      'return await adf.model_invoke({ prompt: "answer?", system: "be brief", max_tokens: 5000 });',
      { authorized: false, principalId: 'sys_code' },
    );
    expect(r).toMatchObject({
      ok: true,
      value: {
        text: 'forty-two',
        model: 'scripted',
        stopReason: 'end_turn',
        usage: { inputTokens: 0, outputTokens: 0 },
      },
    });
    const req = provider.requests[0]!;
    expect(req.tools).toEqual([]);
    expect(req.messages).toEqual([{ role: 'user', content: 'answer?' }]);
    expect(req.system).toBe('be brief');
    expect(req.maxTokens).toBe(100);
    const audit = agent.adf.audit.list().filter((e) => e.action === 'model.invoke');
    expect(audit).toMatchObject([
      { decision: 'allow', target: 'scripted:scripted', principal: { kind: 'code', id: 'sys_code' } },
    ]);
    expect(agent.adf.loop.list()).toEqual([]); // nothing reaches the agent's own conversation
    agent.close();
  });

  it('refuses bad requests with MODEL_INVOKE_INVALID and over-quota calls with CODE_METHOD_QUOTA', async () => {
    const { agent } = agentWith([say('a'), say('b'), say('c')]);
    const bad = await agent.runner.runCode(
      'const out = []; for (const a of [{}, { prompt: "x", messages: [] }, { messages: [{ role: "assistant", ' +
        'content: "x" }] }]) { try { await adf.model_invoke(a); } catch (e) { out.push(e.code); } } return out;',
      { authorized: false, principalId: 'sys_code' },
    );
    expect(bad).toMatchObject({
      ok: true,
      value: ['MODEL_INVOKE_INVALID', 'MODEL_INVOKE_INVALID', 'MODEL_INVOKE_INVALID'],
    });
    const runner = createCodeRunner({
      adf: agent.adf,
      sandbox: createCodeSandbox(),
      gate: () => agent.gate,
      methodQuotas: { model_invoke: 2 },
    });
    const r = await runner.runCode(
      'const out = []; for (let i = 0; i < 3; i++) { try { out.push((await adf.model_invoke({ prompt: "p" + ' +
        'i })).text); } catch (e) { out.push(e.code); } } return out;',
      { authorized: false, principalId: 'sys_code' },
    );
    expect(r).toMatchObject({ ok: true, value: ['a', 'b', 'CODE_METHOD_QUOTA'] });
    expect(agent.adf.audit.list().filter((e) => e.code === 'CODE_METHOD_QUOTA')).toHaveLength(1);
    agent.close();
  });
});

describe('bridge calls end with their execution', () => {
  it('a model call still running when the code times out is aborted', async () => {
    const { agent, provider } = agentWith(
      [
        (req) =>
          new Promise((_resolve, reject) => {
            req.signal?.addEventListener('abort', () => reject(new Error('aborted by the runtime')));
          }),
      ],
      (c) => {
        c.limits!.execution_timeout_ms = 100;
      },
    );
    const r = await agent.runner.runCode('return await adf.model_invoke({ prompt: "slow" });', {
      authorized: false,
      principalId: 'sys_code',
    });
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_TIMEOUT') });
    expect(provider.requests[0]!.signal?.aborted).toBe(true);
    agent.close();
  });
});

describe('adf.loop_inject', () => {
  it(
    'a note written during a tool call reaches the model after the tool results, ' + 'framed as a runtime note',
    async () => {
      let seen: ModelRequest | undefined;
      const { agent } = agentWith([
        use('t1', 'sys_code', { code: 'await adf.loop_inject({ text: "build 7 failed" }); return 1;' }),
        (req) => {
          seen = req;
          return {
            content: [{ type: 'text', text: 'noted' }],
            stopReason: 'end_turn',
            usage: { inputTokens: 0, outputTokens: 0 },
            model: 'scripted',
          };
        },
      ]);
      expect(await agent.send('go')).toMatchObject({ text: 'noted' });
      const last = seen!.messages[seen!.messages.length - 1]!;
      expect(last.role).toBe('user');
      expect(Array.isArray(last.content) && last.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
      expect(textsOf(seen!)[0]).toBe(
        '[runtime note from code sys_code] Injected by agent code through adf.loop_inject; ' +
          'not a message from your owner.\nbuild 7 failed',
      );
      expect(seen!.messages.filter((m) => m.role !== 'user' && m.role !== 'assistant')).toEqual([]);
      expect(agent.adf.loop.list().map((r) => r.role)).toEqual([
        'user',
        'assistant',
        LOOP_NOTE_ROLE,
        'user',
        'assistant',
      ]);
      agent.close();
    },
  );

  it('a note written while idle never starts the loop; it joins the next human turn', async () => {
    const { agent, provider } = agentWith([say('ok')]);
    agent.adf.files.write(
      'hook.ts',
      'async function note(ev: { text: string }): Promise<void> { await adf.loop_inject({ text: ev.text }); }',
    );
    expect(
      await agent.runner.runSystemLambda(parseLambdaRef('hook.ts:note'), { text: 'disk almost full' }),
    ).toMatchObject({ ok: true });
    expect(await agent.run()).toMatchObject({ stopReason: 'idle', turns: 0 });
    expect(provider.requests).toHaveLength(0);
    await agent.send('status?');
    expect(provider.requests[0]!.messages).toHaveLength(1);
    expect(textsOf(provider.requests[0]!)).toEqual([
      'status?',
      expect.stringMatching(
        /^\[runtime note from code hook\.ts\] .*not a message from your owner\.\ndisk almost full$/,
      ),
    ]);
    agent.close();
  });

  it('refuses an empty note', async () => {
    const { agent } = agentWith();
    expect(
      await agent.runner.runCode('try { await adf.loop_inject({ text: "  " }); } catch (e) { return e.code; }', {
        authorized: false,
        principalId: 'sys_code',
      }),
    ).toMatchObject({ value: 'LOOP_INJECT_EMPTY' });
    agent.close();
  });
});

describe('adf.task_resolve', () => {
  async function pendingWrite() {
    const { agent } = agentWith([
      use('t1', 'fs_write', { path: 'out.txt', mode: 'write', content: 'approved' }),
      say('done'),
    ]);
    agent.adf.files.write('gw.js', 'async function resolve(a) { return await adf.task_resolve(a); }');
    agent.adf.files.setAuthorized('gw.js', true, 'owner');
    const turn = agent.send('write it');
    await vi.waitFor(() => {
      expect(agent.gate.pendingApprovals()).toHaveLength(1);
    });
    return { agent, turn, taskId: agent.gate.pendingApprovals()[0]!.id };
  }

  it('unauthorized code (anything the model wrote) can never resolve a task', async () => {
    const { agent, turn, taskId } = await pendingWrite();
    const r = await agent.runner.runCode(
      `try { await adf.task_resolve({ task_id: ${JSON.stringify(taskId)}, decision: "approve" }); } ` +
        'catch (e) { return e.code; }',
      { authorized: false, principalId: 'sys_code' },
    );
    expect(r).toMatchObject({ ok: true, value: 'REQUIRES_AUTHORIZED_CODE' });
    // Nor can a non-authorized lambda file.
    agent.adf.files.write(
      'plain.js',
      'async function resolve(a) { try { await adf.task_resolve(a); } catch (e) { return e.code; } }',
    );
    expect(
      await agent.runner.runSystemLambda(parseLambdaRef('plain.js:resolve'), { task_id: taskId, decision: 'approve' }),
    ).toMatchObject({ value: 'REQUIRES_AUTHORIZED_CODE' });
    expect(agent.gate.pendingApprovals().map((t) => t.id)).toEqual([taskId]);
    expect(
      agent.adf.audit.list().filter((e) => e.action === 'approval.resolve' && e.code === 'REQUIRES_AUTHORIZED_CODE'),
    ).toHaveLength(2);
    agent.gate.resolveTask(taskId, { decision: 'deny', feedback: 'no' }, 'owner');
    await turn;
    expect(agent.adf.files.read('out.txt')).toBeUndefined();
    agent.close();
  });

  it('authorized code may approve a restricted call of the loop once', async () => {
    const { agent, turn, taskId } = await pendingWrite();
    expect(
      await agent.runner.runSystemLambda(parseLambdaRef('gw.js:resolve'), { task_id: taskId, decision: 'approve' }),
    ).toMatchObject({ ok: true, value: { task_id: taskId, decision: 'approve' } });
    expect(await turn).toMatchObject({ text: 'done' });
    expect(agent.adf.files.read('out.txt')?.content.toString()).toBe('approved');
    expect(agent.adf.tasks.get(taskId)).toMatchObject({ status: 'completed' });
    expect(agent.adf.audit.list().find((e) => e.action === 'approval.resolve' && e.decision === 'allow')).toMatchObject(
      { principal: { kind: 'authorized-code' } },
    );
    // Arguments cannot be changed and "always" cannot be asked for: the schema has no such fields.
    expect(
      await agent.runner.runSystemLambda(parseLambdaRef('gw.js:resolve'), {
        task_id: taskId,
        decision: 'approve',
        always: true,
      }),
    ).toMatchObject({ ok: false, message: expect.stringMatching(/TOOL_ARGS_INVALID/) });
    agent.close();
  });

  it("the gateway pattern: an on_task_create trigger in an authorized file approves the loop's call", async () => {
    const { agent } = agentWith(
      [use('t1', 'fs_write', { path: 'out.txt', mode: 'write', content: 'via gateway' }), say('done')],
      (c) => {
        c.triggers = [
          { type: 'on_task_create', scope: 'system', lambda: 'gateway.ts:onTask', filter: { tools: 'fs_write' } },
        ];
      },
    );
    agent.adf.files.write(
      'gateway.ts',
      'async function onTask(ev: { data: { id: string; tool: string } }): Promise<unknown> { return await ' +
        'adf.task_resolve({ task_id: ev.data.id, decision: "approve" }); }',
    );
    agent.adf.files.setAuthorized('gateway.ts', true, 'owner');
    expect(await agent.send('write it')).toMatchObject({ text: 'done' });
    await agent.idle();
    expect(agent.adf.files.read('out.txt')?.content.toString()).toBe('via gateway');
    expect(agent.adf.logs.list().some((l) => l.event === 'trigger.ran' && l.target === 'on_task_create#0')).toBe(true);
    agent.close();
  });

  it('authorized code may not grant a run of an authorized file, nor resolve a finished task', async () => {
    const { agent } = agentWith([use('t1', 'sys_lambda', { target: 'gw.js:resolve', args: {} }), say('done')]);
    agent.adf.files.write(
      'gw.js',
      'async function resolve(a) { try { return await adf.task_resolve(a); } catch (e) { return e.code; } }',
    );
    agent.adf.files.setAuthorized('gw.js', true, 'owner');
    const turn = agent.send('run the gateway');
    await vi.waitFor(() => {
      expect(agent.gate.pendingApprovals()).toHaveLength(1);
    });
    const task = agent.gate.pendingApprovals()[0]!;
    expect(task.approvalMeta).toMatchObject({ reason: 'authorized-target' });
    expect(
      await agent.runner.runSystemLambda(parseLambdaRef('gw.js:resolve'), { task_id: task.id, decision: 'approve' }),
    ).toMatchObject({ value: 'TASK_NOT_CODE_RESOLVABLE' });
    agent.gate.resolveTask(task.id, { decision: 'deny' }, 'owner');
    await turn;
    expect(
      await agent.runner.runSystemLambda(parseLambdaRef('gw.js:resolve'), { task_id: task.id, decision: 'approve' }),
    ).toMatchObject({ value: 'TASK_NOT_PENDING' });
    agent.close();
  });
});
