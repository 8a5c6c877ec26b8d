import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { openAgent, type OpenAgentOptions } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';

// Triggers dispatched through a real agent: the .adf file raises the events, the dispatcher
// matches them, system lambdas run in the QuickJS sandbox through the gate.

type Trigger = { type: string; scope?: 'system' | 'agent'; lambda?: string; filter?: Record<string, string> };

function agentWith(triggers: Trigger[], o: { autonomous?: boolean } & Partial<OpenAgentOptions> = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'triggers-')), 'a.adf');
  const config = structuredClone(defaultAgentConfig()) as unknown as {
    tools: Array<{ name: string; restricted?: boolean }>;
    autonomous: boolean;
    triggers: Trigger[];
  };
  config.tools = config.tools.map((t) => (t.name === 'fs_write' ? { ...t, restricted: true } : t));
  config.autonomous = o.autonomous ?? false;
  config.triggers = triggers;
  createAdf(path, { template: config }).close();
  const { autonomous: _a, ...rest } = o;
  return openAgent(path, { provider: createScriptedProvider(), ...rest });
}

const APPEND = (file: string, what: string) =>
  `async function run(ev) { await adf.fs_write({ path: "${file}", mode: "append", content: ${what} + ";" }); ` +
  'return ev.type; }';
const triggerLogs = (agent: ReturnType<typeof openAgent>) =>
  agent.adf.logs
    .list()
    .filter((l) => l.origin === 'trigger')
    .map((l) => `${l.event} ${l.target}`);
const fires = (agent: ReturnType<typeof openAgent>) =>
  agent.adf.audit.list().filter((e) => e.action === 'trigger.fire');

describe('trigger dispatch', () => {
  it(
    'system triggers run their lambda with their own file’s authorization; ' + 'each firing is logged and audited',
    async () => {
      const agent = agentWith([
        { type: 'on_file_change', scope: 'system', lambda: 'hooks.js:run', filter: { watch: 'inbox/**' } },
        {
          type: 'on_file_change',
          scope: 'system',
          lambda: 'plain.js:run',
          filter: { watch: 'inbox/**', event: 'write' },
        },
      ]);
      agent.adf.files.write('hooks.js', APPEND('seen.txt', 'ev.data.path + ":" + ev.data.change'));
      agent.adf.files.write('plain.js', APPEND('plain.txt', 'ev.data.path'));
      agent.adf.files.setAuthorized('hooks.js', true, 'owner');
      agent.adf.files.write('inbox/a.txt', 'x');
      agent.adf.files.delete('inbox/a.txt');
      await agent.idle();
      expect(agent.adf.files.read('seen.txt')?.content.toString()).toBe('inbox/a.txt:write;inbox/a.txt:delete;');
      // plain.js is not authorized: the restricted fs_write is refused to it.
      expect(agent.adf.files.read('plain.txt')).toBeUndefined();
      expect(triggerLogs(agent)).toEqual([
        'trigger.ran on_file_change#0',
        'trigger.failed on_file_change#1',
        'trigger.ran on_file_change#0',
      ]);
      expect(agent.adf.logs.list().find((l) => l.event === 'trigger.failed')?.message).toContain(
        'REQUIRES_AUTHORIZED_CODE',
      );
      expect(
        fires(agent).map((e) => [
          e.principal.kind,
          e.principal.id,
          e.decision,
          (e.details as { outcome: string }).outcome,
        ]),
      ).toEqual([
        ['authorized-code', 'hooks.js:run', 'allow', 'ran'],
        ['code', 'plain.js:run', 'allow', 'failed'],
        ['authorized-code', 'hooks.js:run', 'allow', 'ran'],
      ]);
      expect(agent.adf.audit.verify().ok).toBe(true);
      agent.close();
    },
  );

  it('a lambda that writes what it watches does not re-fire itself (regression: trigger storm)', async () => {
    const agent = agentWith([
      { type: 'on_file_change', scope: 'system', lambda: 'loop.js:run', filter: { watch: '**' } },
    ]);
    agent.adf.files.write('loop.js', APPEND('log.txt', '"x"'));
    agent.adf.files.setAuthorized('loop.js', true, 'owner');
    await agent.idle();
    // writing loop.js fired it once; its write to log.txt is its own effect: refused, fail closed.
    expect(agent.adf.files.read('log.txt')?.content.toString()).toBe('x;');
    expect(triggerLogs(agent)).toEqual(['trigger.ran on_file_change#0', 'trigger.refused on_file_change#0']);
    expect(fires(agent).at(-1)).toMatchObject({ decision: 'deny', code: expect.toBeTrustCode('TRIGGER_SELF') });
    agent.close();
  });

  it('a chain of triggers stops at the depth limit', async () => {
    const agent = agentWith(
      [
        { type: 'on_file_change', scope: 'system', lambda: 'chain.js:run', filter: { watch: 'a/*' } },
        { type: 'on_file_change', scope: 'system', lambda: 'chain.js:run', filter: { watch: 'b/*' } },
        { type: 'on_file_change', scope: 'system', lambda: 'chain.js:run', filter: { watch: 'c/*' } },
      ],
      { triggerLimits: { maxDepth: 2 } },
    );
    agent.adf.files.write(
      'chain.js',
      'async function run(ev) { const next = { a: "b", b: "c", c: "d" }[ev.data.path[0]]; await ' +
        'adf.fs_write({ path: next + "/x", mode: "write", content: "1" }); }',
    );
    agent.adf.files.setAuthorized('chain.js', true, 'owner');
    agent.adf.files.write('a/start', 'go');
    await agent.idle();
    expect(agent.adf.files.list().map((f) => f.path)).toEqual(['a/start', 'b/x', 'c/x', 'chain.js']);
    expect(triggerLogs(agent)).toEqual([
      'trigger.ran on_file_change#0',
      'trigger.ran on_file_change#1',
      'trigger.refused on_file_change#2',
    ]);
    expect(fires(agent).at(-1)).toMatchObject({ decision: 'deny', code: expect.toBeTrustCode('TRIGGER_DEPTH') });
    agent.close();
  });

  it('a storm from outside is capped per trigger (fail closed), and the refusal is logged', async () => {
    const agent = agentWith([{ type: 'on_external', scope: 'system', lambda: 'ci.js:run', filter: { source: 'ci' } }], {
      triggerLimits: { maxPerTrigger: 2 },
    });
    agent.adf.files.write('ci.js', 'function run(ev) { return ev.data.payload; }');
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++)
      outcomes.push(
        ...(await agent.trigger({ source: 'ci', payload: i })).map((f) => f.outcome + (f.code ? `:${f.code}` : '')),
      );
    expect(outcomes).toEqual(['ran', 'ran', 'refused:TRIGGER_RATE']);
    expect(agent.adf.logs.list().at(-1)).toMatchObject({ level: 'warn', origin: 'trigger', event: 'trigger.refused' });
    agent.close();
  });

  it('events beyond the queue bound are dropped, logged and audited', async () => {
    const agent = agentWith(
      [{ type: 'on_file_change', scope: 'system', lambda: 'q.js:run', filter: { watch: 'in/*' } }],
      { triggerLimits: { maxQueue: 1 } },
    );
    agent.adf.files.write('q.js', 'function run(ev) { return ev.data.path; }');
    await agent.idle();
    for (const name of ['a', 'b', 'c']) agent.adf.files.write(`in/${name}`, name);
    await agent.idle();
    expect(triggerLogs(agent)).toEqual([
      'trigger.dropped on_file_change',
      'trigger.dropped on_file_change',
      'trigger.ran on_file_change#0',
    ]);
    expect(
      agent.adf.audit
        .list()
        .filter((e) => e.action === 'trigger.drop')
        .map((e) => e.code),
    ).toEqual(['TRIGGER_QUEUE_FULL', 'TRIGGER_QUEUE_FULL']);
    agent.close();
  });

  it('agent-scope triggers wake the loop only in autonomous mode, never as the owner', async () => {
    const mail = {
      from: 'did:key:zSender',
      to: 'did:key:zMe',
      subject: 'status?',
      content: 'how is it going',
      source: 'mesh',
    };
    const quiet = agentWith([{ type: 'on_inbox', scope: 'agent', filter: { source: 'mesh' } }]);
    quiet.adf.inbox.insert(mail);
    await quiet.idle();
    expect((quiet.provider as ReturnType<typeof createScriptedProvider>).requests).toHaveLength(0);
    expect(triggerLogs(quiet)).toEqual(['trigger.skipped on_inbox#0']);
    quiet.close();

    const provider = createScriptedProvider([{ content: [{ type: 'text', text: 'on it' }] }]);
    const busy = agentWith(
      [
        { type: 'on_inbox', scope: 'agent', filter: { source: 'mesh' } },
        { type: 'on_inbox', scope: 'system', lambda: 'vip.js:run', filter: { sender: 'did:key:zSender' } },
      ],
      { autonomous: true, provider },
    );
    busy.adf.files.write('vip.js', APPEND('vip.txt', 'ev.data.subject'));
    busy.adf.files.setAuthorized('vip.js', true, 'owner');
    busy.adf.inbox.insert({ ...mail, source: 'local' }); // filtered out
    busy.adf.inbox.insert(mail); // unsigned: its `from` is only a claim, the sender filter does not match
    busy.adf.inbox.insert({ ...mail, source: 'local', subject: 'verified', meta: { message_verified: true } });
    await busy.idle();
    expect(provider.requests).toHaveLength(1);
    const woke = provider.requests[0]!.messages.at(-1)!;
    expect(woke.role).toBe('user');
    expect(woke.content).toEqual(
      expect.stringMatching(
        /^\[trigger on_inbox #0\] An automated event raised by the runtime, not a message from your owner\./,
      ),
    );
    expect(woke.content).toContain('"subject":"status?"');
    expect(triggerLogs(busy)).toEqual(['trigger.woke on_inbox#0', 'trigger.ran on_inbox#1']);
    expect(busy.adf.files.read('vip.txt')?.content.toString()).toBe('verified;');
    busy.close();
  });

  it('tool calls, model calls, tasks, logs, startup and external events fire their triggers', async () => {
    const provider = createScriptedProvider([{ content: [{ type: 'text', text: 'hello' }] }]);
    const agent = agentWith(
      [
        { type: 'on_tool_call', scope: 'system', lambda: 'obs.js:run', filter: { tools: 'fs_read', status: 'ok' } },
        { type: 'on_llm_call', scope: 'system', lambda: 'obs.js:run', filter: { provider: 'scripted' } },
        { type: 'on_task_create', scope: 'system', lambda: 'obs.js:run', filter: { tools: 'db_execute' } },
        { type: 'on_task_complete', scope: 'system', lambda: 'obs.js:run', filter: { status: 'denied' } },
        { type: 'on_logs', scope: 'system', lambda: 'obs.js:run', filter: { level: 'error' } },
        { type: 'on_startup', scope: 'system', lambda: 'obs.js:run' },
        { type: 'on_external', scope: 'system', lambda: 'obs.js:run', filter: { source: 'webhook|ci' } },
        { type: 'on_chat', scope: 'agent' },
      ],
      { provider },
    );
    agent.adf.files.write('obs.js', APPEND('obs.txt', 'ev.type'));
    agent.adf.files.setAuthorized('obs.js', true, 'owner');
    await agent.gate.call('fs_read', { path: 'obs.js' }, { origin: 'llm' });
    // status error: no match
    await expect(agent.gate.call('fs_read', { path: 'missing.txt' }, { origin: 'llm' })).rejects.toThrow();
    await agent.send('hi');
    const task = agent.adf.tasks.create({ tool: 'db_execute', args: {}, origin: 'llm', status: 'pending_approval' });
    agent.adf.tasks.transition(task.id, 'pending_approval', 'denied');
    agent.adf.logs.add({ level: 'error', origin: 'test', message: 'boom' });
    agent.adf.logs.add({ level: 'info', origin: 'test', message: 'fine' });
    expect((await agent.start()).map((f) => f.outcome)).toEqual(['ran']);
    expect(await agent.start()).toEqual([]); // already started: no second on_startup
    expect((await agent.trigger({ source: 'Webhook', payload: { id: 1 } })).map((f) => [f.type, f.outcome])).toEqual([
      ['on_external', 'ran'],
    ]);
    expect(await agent.trigger({ source: 'github' })).toEqual([]);
    await agent.idle();
    expect(agent.adf.files.read('obs.txt')?.content.toString()).toBe(
      'on_tool_call;on_llm_call;on_task_create;on_task_complete;on_logs;on_startup;on_external;',
    );
    expect(agent.adf.logs.list().find((l) => l.target === 'on_chat#7')).toMatchObject({
      event: 'trigger.skipped',
      message: "the owner's message already runs the loop",
    });
    agent.close();
  });

  it.each([
    ['user', 'TRIGGER_SOURCE_FORBIDDEN'],
    ['owner', 'TRIGGER_SOURCE_FORBIDDEN'],
    ['system', 'TRIGGER_SOURCE_FORBIDDEN'],
    ['SYSTEM', 'TRIGGER_SOURCE_FORBIDDEN'],
    [' User ', 'TRIGGER_SOURCE_INVALID'],
    [' ', 'TRIGGER_SOURCE_INVALID'],
    ['\u200buser', 'TRIGGER_SOURCE_INVALID'],
    ['\uff35\uff33\uff25\uff32', 'TRIGGER_SOURCE_INVALID'],
    ['user\u0000', 'TRIGGER_SOURCE_INVALID'],
    ['us\u00ader', 'TRIGGER_SOURCE_INVALID'],
  ])('an external trigger can never speak as the owner (source %j)', async (source, code) => {
    const agent = agentWith([{ type: 'on_external', scope: 'agent' }], { autonomous: true });
    await expect(agent.trigger({ source })).rejects.toMatchObject({ code });
    expect(agent.adf.loop.list()).toEqual([]);
    expect(
      agent.adf.audit.list().filter((e) => e.action === 'trigger.receive' && e.decision === 'deny' && e.code === code),
    ).toHaveLength(1);
    agent.close();
  });

  it(
    'a trigger payload nested to the cap fires; ' + 'one level more is refused with INPUT_TOO_DEEP and audited',
    async () => {
      const agent = agentWith([
        { type: 'on_external', scope: 'system', lambda: 'obs.js:run', filter: { source: 'ci' } },
      ]);
      agent.adf.files.write('obs.js', 'async function run(ev) { return ev.type; }');
      const nested = (n: number): unknown => JSON.parse('['.repeat(n) + ']'.repeat(n));
      expect((await agent.trigger({ source: 'ci', payload: nested(62) })).map((f) => f.outcome)).toEqual(['ran']);
      await expect(agent.trigger({ source: 'ci', payload: nested(63) })).rejects.toHaveTrustCode('INPUT_TOO_DEEP');
      await expect(agent.trigger({ source: 'ci', payload: nested(100_000) })).rejects.toHaveTrustCode('INPUT_TOO_DEEP');
      expect(
        agent.adf.audit.list().filter((e) => e.action === 'trigger.receive' && e.code === 'INPUT_TOO_DEEP'),
      ).toHaveLength(2);
      agent.close();
    },
  );
});
