// An in-memory agents registry for the studio tests: one scripted agent that asks for a restricted
// tool and waits for the owner, with a hash-chained audit log, a tool matrix, config, files and an
// inbox. Untrusted content (model output, messages, files) is whatever the test scripts.
import { createHash } from 'node:crypto';
import type { AuditEvent, AuditInput } from '@trust/core';
import { controlError, type ApprovalTask, type ControlAgent, type ControlAgents, type ControlEvent, type LoopTurn, type MessageView, type ToolRow } from '@trust/agent-runtime';

/** What the scripted model answers to one owner message. */
export type ScriptStep = { kind: 'say'; text: string } | { kind: 'tool'; tool: string; args: unknown; say: string; result: string };

const canonical = (v: unknown): string =>
  v === null || typeof v !== 'object'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;

export interface DemoOptions {
  /** One entry per owner message, consumed in order. */
  script: ScriptStep[];
  inbox?: MessageView[];
  files?: Record<string, string>;
}

export function createDemoAgents(o: DemoOptions): ControlAgents & { audit(): readonly AuditEvent[] } {
  const listeners = new Set<(e: ControlEvent) => void>();
  const emit = (e: ControlEvent) => listeners.forEach((l) => l(e));
  const turns: LoopTurn[] = [];
  const tasks: ApprovalTask[] = [];
  const events: AuditEvent[] = [];
  const files = new Map(Object.entries(o.files ?? {}).map(([p, c]) => [p, { content: c, authorized: false }]));
  const script = [...o.script];
  let state = 'idle';
  let waiting: { task: string; step: Extract<ScriptStep, { kind: 'tool' }> } | undefined;
  const tools: ToolRow[] = [
    { name: 'fs_read', enabled: true, visible: true, restricted: false, locked: false },
    { name: 'fs_write', enabled: true, visible: true, restricted: true, locked: false },
    { name: 'sys_fetch', enabled: true, visible: true, restricted: false, locked: true, lockedWhy: 'locked in code: egress stays under the owner' },
    { name: 'adf_shell', enabled: false, visible: false, restricted: true, locked: true, lockedWhy: 'locked by the owner' },
  ];
  const config: Record<string, unknown> = { v: 1, name: 'helper', model: { provider: 'scripted' }, limits: { max_turns: 10 }, providers: { api_key: '[redacted]' } };

  const record = (input: Omit<AuditInput, 'principal'> & { by: 'owner' | 'llm' }) => {
    const { by, ...rest } = input;
    const body = { ...rest, principal: { kind: by, id: by === 'owner' ? 'control-api' : 'helper', agent: 'helper' }, v: 1 as const, time: new Date().toISOString(), prev: events.at(-1)?.hash ?? '0'.repeat(64) };
    const event = { ...body, hash: createHash('sha256').update(canonical(body)).digest('hex') } as AuditEvent;
    events.push(event);
    emit({ kind: 'audit', agent: 'helper', data: event });
  };
  const turn = (t: Omit<LoopTurn, 'seq' | 'time'>) => {
    const full = { ...t, seq: turns.length, time: new Date().toISOString() };
    turns.push(full);
    emit({ kind: 'turn', agent: 'helper', data: full });
    return full;
  };
  const settle = (id: string, status: 'approved' | 'denied', change: { args?: unknown; feedback?: string }) => {
    const i = tasks.findIndex((t) => t.id === id);
    if (i < 0 || tasks[i]!.status !== 'pending' || waiting?.task !== id) throw controlError('CONTROL_TASK_NOT_FOUND', `task ${id} is not waiting`);
    const step = waiting.step;
    waiting = undefined;
    const args = change.args ?? tasks[i]!.args;
    tasks[i] = { ...tasks[i]!, status, args, ...(change.feedback ? { feedback: change.feedback } : {}) };
    record({ by: 'owner', action: 'approval.resolve', target: step.tool, decision: status === 'approved' ? 'allow' : 'deny', rule: 'restricted', details: { task: id } });
    if (status === 'approved') {
      record({ by: 'llm', action: 'tool.call', target: step.tool, decision: 'allow', rule: 'approved-by-owner', details: { args } });
      turn({ role: 'tool', content: step.result, tool: { name: step.tool, args, status: 'done' } });
      turn({ role: 'assistant', content: 'Done: the tool ran after your approval.' });
    } else {
      turn({ role: 'assistant', content: `Understood, I will not run ${step.tool}. Feedback: ${change.feedback ?? 'none'}` });
    }
    state = 'idle';
    emit({ kind: 'task', agent: 'helper', data: tasks[i] });
    return tasks[i]!;
  };

  const agent: ControlAgent = {
    id: 'helper',
    summary: () => ({ id: 'helper', name: 'helper', state, description: 'scripted demo agent', pendingApprovals: tasks.filter((t) => t.status === 'pending').length }),
    start: () => void (state = 'idle'),
    stop: () => void (state = 'stopped'),
    send(text) {
      const from = turns.length;
      turn({ role: 'user', content: text });
      const step = script.shift() ?? { kind: 'say', text: 'I have nothing more to say.' };
      if (step.kind === 'say') {
        turn({ role: 'assistant', content: step.text });
      } else {
        turn({ role: 'assistant', content: step.say, tool: { name: step.tool, args: step.args, status: 'waiting for approval' } });
        const task: ApprovalTask = { id: `task-${tasks.length + 1}`, agent: 'helper', tool: step.tool, args: step.args, reason: `${step.tool} is restricted: loop calls need the owner's approval`, status: 'pending', createdAt: new Date().toISOString() };
        tasks.push(task);
        waiting = { task: task.id, step };
        state = 'waiting-approval';
        record({ by: 'llm', action: 'approval.request', target: step.tool, decision: 'deny', code: 'APPROVAL_PENDING', rule: 'restricted', details: { task: task.id } });
        emit({ kind: 'approval', agent: 'helper', data: task });
      }
      return turns.slice(from);
    },
    history: () => turns,
    tasks: () => tasks,
    approve: (id, change, _by) => settle(id, 'approved', change),
    deny: (id, change, _by) => settle(id, 'denied', change),
    config: () => ({
      config,
      lockedFields: [{ path: 'security.allow_local_fetch', why: 'locked in code for every agent' }],
      guardPaths: [{ path: 'security.allow_unsigned', why: 'decides what needs approval; owner console only' }],
    }),
    updateConfig(change) {
      record({ by: 'owner', action: 'config.update', target: change.path, decision: 'allow', rule: 'owner-bypasses-locks' });
      const parts = change.path.split('.');
      let at = config;
      for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
      at[parts.at(-1)!] = change.value;
      return agent.config!() as ReturnType<NonNullable<ControlAgent['config']>> as never;
    },
    tools: () => tools,
    updateTool(name, change) {
      const i = tools.findIndex((t) => t.name === name);
      if (i < 0) throw controlError('CONTROL_NOT_FOUND', `no tool ${name}`);
      tools[i] = { ...tools[i]!, ...change };
      record({ by: 'owner', action: 'config.tool', target: name, decision: 'allow', rule: 'owner-bypasses-locks', details: change });
      return tools;
    },
    files: () => [...files].map(([path, f]) => ({ path, size: f.content.length, authorized: f.authorized })),
    readFile(path) {
      const f = files.get(path);
      if (f === undefined) throw controlError('CONTROL_NOT_FOUND', `no file ${path}`);
      return { path, content: f.content, authorized: f.authorized };
    },
    setAuthorized(path, authorized) {
      const f = files.get(path);
      if (f === undefined) throw controlError('CONTROL_NOT_FOUND', `no file ${path}`);
      f.authorized = authorized;
      record({ by: 'owner', action: 'file.authorize', target: path, decision: 'allow', details: { authorized } });
      return { path, size: f.content.length, authorized };
    },
    inbox: () => o.inbox ?? [],
    outbox: () => [],
    audit: () => events,
    verifyAudit() {
      let prev = '0'.repeat(64);
      for (const [i, e] of events.entries()) {
        const { hash, ...rest } = e;
        if (e.prev !== prev || createHash('sha256').update(canonical(rest)).digest('hex') !== hash) return { ok: false, count: events.length, brokenAt: i, reason: 'hash mismatch' };
        prev = hash;
      }
      return { ok: true, count: events.length };
    },
  };
  return {
    list: () => [agent.summary() as never],
    open(id) {
      if (id !== 'helper') throw controlError('CONTROL_AGENT_NOT_FOUND', `no agent ${id}`);
      return agent;
    },
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    audit: () => events,
  };
}
