// Test-only helpers for the control server tests: a raw loopback HTTP client (fetch cannot set
// Host) and a tiny in-memory agents registry. Not exported from the package.
import { request } from 'node:http';
import type {
  AgentSummary,
  ApprovalTask,
  ControlAgent,
  ControlAgents,
  ControlEvent,
  LoopTurn,
} from './agent-registry.js';
import { controlError } from './control-error.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

export function call(
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: o.method ?? 'GET',
        path: o.path,
        headers: { host: `127.0.0.1:${port}`, ...o.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/** One agent "a1" whose send() asks for the restricted tool `fs_write` and waits for approval. */
export function createTestAgents(): ControlAgents & { emit(e: ControlEvent): void } {
  const listeners = new Set<(e: ControlEvent) => void>();
  const turns: LoopTurn[] = [];
  const tasks: ApprovalTask[] = [];
  const emit = (e: ControlEvent) => {
    for (const l of listeners) l(e);
  };
  const now = () => new Date(0).toISOString();
  const summary = (): AgentSummary => ({
    id: 'a1',
    name: 'a1',
    state: 'idle',
    pendingApprovals: tasks.filter((t) => t.status === 'pending').length,
  });
  const agent: ControlAgent = {
    id: 'a1',
    summary,
    send: (text) => {
      const start = turns.length;
      turns.push({ seq: turns.length, role: 'user', content: text, time: now() });
      const task: ApprovalTask = {
        id: `t${tasks.length + 1}`,
        agent: 'a1',
        tool: 'fs_write',
        args: { path: 'x.txt' },
        reason: 'restricted tool',
        status: 'pending',
        createdAt: now(),
      };
      tasks.push(task);
      emit({ kind: 'approval', agent: 'a1', data: task });
      return turns.slice(start);
    },
    history: () => turns,
    tasks: () => tasks,
    approve: (id, change) => {
      const i = tasks.findIndex((t) => t.id === id);
      if (i < 0) throw controlError('CONTROL_TASK_NOT_FOUND', `no task ${id}`);
      tasks[i] = { ...tasks[i]!, status: 'approved', args: change.args ?? tasks[i]!.args };
      return tasks[i]!;
    },
    readFile: (path) => ({ path, content: 'hello', authorized: false }),
  };
  return {
    list: () => [summary()],
    open: (id) => {
      if (id !== 'a1') throw controlError('CONTROL_AGENT_NOT_FOUND', `no agent ${id}`);
      return agent;
    },
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    emit,
  };
}
