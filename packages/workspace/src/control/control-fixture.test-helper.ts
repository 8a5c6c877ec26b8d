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

/** A JSON Schema node as the config-schema tests walk it. */
export interface SchemaView {
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly properties?: Readonly<Record<string, SchemaView>>;
}

/**
 * A control API answer as the tests read it: the members the routes answer with, each typed as
 * present. Reading one an answer lacks throws, which fails the test that expected it.
 */
export interface ControlAnswer {
  readonly error: { readonly code: string; readonly message: string; readonly hint?: string };
  readonly agents: readonly { readonly id: string; readonly state: string }[];
  readonly agent: { readonly id: string; readonly state: string };
  readonly file: { readonly path: string; readonly content: string };
  readonly tasks: readonly { readonly id: string; readonly status: string; readonly args?: unknown }[];
  readonly turns: readonly { readonly role: string; readonly tool?: { readonly status: string } }[];
  readonly tools: readonly { readonly name: string; readonly enabled: boolean; readonly locked: boolean }[];
  readonly chain: { readonly ok: boolean; readonly brokenAt?: number };
  readonly events: readonly {
    readonly action: string;
    readonly target: string;
    readonly principal: { readonly kind: string };
  }[];
  readonly templates: readonly { readonly id: string }[];
  readonly edges: readonly { readonly from: string; readonly to: string; readonly count: number }[];
  readonly guardPaths: readonly { readonly path: string }[];
  readonly lockedFields: readonly { readonly path: string }[];
  readonly config: {
    readonly model: Readonly<Record<string, unknown>>;
    readonly limits: Readonly<Record<string, unknown>>;
    readonly messaging: Readonly<Record<string, unknown>>;
  };
  readonly runtime: {
    readonly triggers: unknown;
    readonly timers: readonly unknown[];
    readonly mcp: readonly { readonly status: string }[];
    readonly identity: { readonly did: string };
  };
  readonly schema: SchemaView;
  readonly [key: string]: unknown;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, read as `T` (by default a {@link ControlAnswer}). */
  json: <T = ControlAnswer>() => T;
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
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
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
