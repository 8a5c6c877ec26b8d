import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { TrustError } from '@trust/core';
import type { AdfEvent } from './adf-events.js';

export type TaskStatus = 'pending' | 'pending_approval' | 'running' | 'completed' | 'failed' | 'denied' | 'cancelled';

/** One row of `adf_tasks`. `args` is the parsed JSON. */
export interface AdfTask {
  readonly id: string;
  readonly tool: string;
  readonly args: unknown;
  readonly status: TaskStatus;
  readonly result: string | null;
  readonly error: string | null;
  readonly createdAt: string;
  readonly completedAt: string | null;
  readonly origin: string;
  readonly requiresAuthorization: boolean;
  readonly executorManaged: boolean;
  readonly approvalMeta: Record<string, unknown> | null;
}

/** The task table. */
export interface AdfTasks {
  create(task: {
    tool: string;
    args: unknown;
    origin: string;
    status?: TaskStatus;
    requiresAuthorization?: boolean;
    executorManaged?: boolean;
    approvalMeta?: Record<string, unknown>;
  }): AdfTask;
  get(id: string): AdfTask | undefined;
  list(filter?: { status?: TaskStatus }): AdfTask[];
  /** Moves a task to `status` only if it is currently `from`; returns false if it was not. */
  transition(
    id: string,
    from: TaskStatus | readonly TaskStatus[],
    to: TaskStatus,
    fields?: { result?: string; error?: string; args?: unknown },
  ): boolean;
  /** After a crash: running tasks fail, executor-managed pending approvals are cancelled. */
  reconcile(): { failed: number; cancelled: number };
}

interface Row {
  id: string;
  tool: string;
  args: string;
  status: TaskStatus;
  result: string | null;
  error: string | null;
  created_at: string;
  completed_at: string | null;
  origin: string;
  requires_authorization: number;
  executor_managed: number;
  approval_meta: string | null;
}

const FINAL: readonly TaskStatus[] = ['completed', 'failed', 'denied', 'cancelled'];

const toTask = (r: Row): AdfTask =>
  Object.freeze({
    id: r.id,
    tool: r.tool,
    args: JSON.parse(r.args) as unknown,
    status: r.status,
    result: r.result,
    error: r.error,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    origin: r.origin,
    requiresAuthorization: r.requires_authorization === 1,
    executorManaged: r.executor_managed === 1,
    approvalMeta: r.approval_meta === null ? null : (JSON.parse(r.approval_meta) as Record<string, unknown>),
  });

/** Builds the task table API. */
export function createAdfTasks(
  db: Database.Database,
  clock: () => Date,
  emit: (e: AdfEvent) => void = () => undefined,
): AdfTasks {
  const get = db.prepare('SELECT * FROM adf_tasks WHERE id = ?');
  return {
    create(t) {
      const id = randomUUID();
      db.prepare(
        'INSERT INTO adf_tasks (id, tool, args, status, origin, requires_authorization, executor_managed, ' +
          'approval_meta, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        id,
        t.tool,
        JSON.stringify(t.args ?? null),
        t.status ?? 'pending',
        t.origin,
        t.requiresAuthorization ? 1 : 0,
        t.executorManaged ? 1 : 0,
        t.approvalMeta === undefined ? null : JSON.stringify(t.approvalMeta),
        clock().toISOString(),
      );
      const task = toTask(get.get(id) as Row);
      emit({ kind: 'task', change: 'create', task });
      return task;
    },
    get: (id) => {
      const r = get.get(id) as Row | undefined;
      return r && toTask(r);
    },
    list(filter = {}) {
      const rows = (
        filter.status
          ? db.prepare('SELECT * FROM adf_tasks WHERE status = ? ORDER BY created_at, rowid').all(filter.status)
          : db.prepare('SELECT * FROM adf_tasks ORDER BY created_at, rowid').all()
      ) as Row[];
      return rows.map(toTask);
    },
    transition(id, from, to, fields = {}) {
      const froms = typeof from === 'string' ? [from] : [...from];
      if (froms.length === 0) throw new TrustError('ADF_TASK_TRANSITION', 'no source status given');
      const completed = FINAL.includes(to) ? clock().toISOString() : null;
      const r = db
        .prepare(
          'UPDATE adf_tasks SET status = ?, result = COALESCE(?, result), error = COALESCE(?, error), ' +
            'args = COALESCE(?, args), completed_at = COALESCE(?, completed_at) ' +
            `WHERE id = ? AND status IN (${froms.map(() => '?').join(',')})`,
        )
        .run(
          to,
          fields.result ?? null,
          fields.error ?? null,
          fields.args === undefined ? null : JSON.stringify(fields.args),
          completed,
          id,
          ...froms,
        );
      if (r.changes !== 1) return false;
      if (completed !== null) emit({ kind: 'task', change: 'complete', task: toTask(get.get(id) as Row) });
      return true;
    },
    reconcile: db.transaction(() => {
      const now = clock().toISOString();
      const failed = db
        .prepare(
          "UPDATE adf_tasks SET status = 'failed', error = 'runtime restarted while running', completed_at = " +
            "? WHERE status = 'running'",
        )
        .run(now).changes;
      const cancelled = db
        .prepare(
          "UPDATE adf_tasks SET status = 'cancelled', error = 'runtime restarted before approval', " +
            "completed_at = ? WHERE status = 'pending_approval' AND executor_managed = 1",
        )
        .run(now).changes;
      return { failed, cancelled };
    }),
  };
}
