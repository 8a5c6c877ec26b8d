import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import type { AdfEvent } from './adf-events.js';

/** One loop entry. */
export interface LoopEntry {
  readonly seq: number;
  readonly role: string;
  readonly content: unknown;
  readonly model: string | null;
  readonly tokens: number | null;
  readonly createdAt: string;
}
/** One mail row (inbox or outbox). `meta` is runtime-owned JSON (trust stamps are set only by the runtime). */
export interface MailRow {
  readonly id: string;
  readonly messageId: string | null;
  readonly from: string | null;
  readonly to: string | null;
  readonly threadId: string | null;
  readonly parentId: string | null;
  readonly subject: string | null;
  readonly content: string;
  readonly contentType: string | null;
  readonly meta: Record<string, unknown>;
  readonly status: string;
  readonly originalMessage: string | null;
  readonly at: string;
}
export type MailInput = Partial<Omit<MailRow, 'id' | 'status' | 'at' | 'meta'>> & {
  content: string;
  meta?: Record<string, unknown>;
  source?: string;
  address?: string;
  sentAt?: string;
};
/** One timer. */
export interface TimerRow {
  readonly id: number;
  readonly schedule: unknown;
  readonly nextWakeAt: string | null;
  readonly payload: string | null;
  readonly scope: string[];
  readonly lambda: string | null;
  readonly runCount: number;
  readonly locked: boolean;
  readonly expired: boolean;
}
/** One log row. */
export interface LogRow {
  readonly id: number;
  readonly level: string;
  readonly origin: string | null;
  readonly event: string | null;
  readonly target: string | null;
  readonly message: string;
  readonly data: unknown;
  readonly createdAt: string;
}

export interface AdfLoop {
  append(entry: { role: string; content: unknown; model?: string; tokens?: number }): number;
  list(options?: { afterSeq?: number; limit?: number }): LoopEntry[];
  clear(): number;
}
/**
 * Mail API. `list` is oldest first unless `newestFirst`; `setStatus` with `onlyFrom` changes the row only while it has
 * that status (one statement, so no race).
 */
export interface AdfMail {
  insert(mail: MailInput): MailRow;
  list(options?: { status?: string; limit?: number; newestFirst?: boolean }): MailRow[];
  get(id: string): MailRow | undefined;
  setStatus(id: string, status: string, options?: { onlyFrom?: string }): boolean;
}
export interface AdfTimers {
  add(timer: {
    schedule: unknown;
    nextWakeAt?: string;
    payload?: string;
    scope?: string[];
    lambda?: string;
    locked?: boolean;
  }): number;
  list(): TimerRow[];
  delete(id: number, options?: { bypassLock?: boolean }): boolean;
  markFired(id: number, nextWakeAt: string | null): void;
}
export interface AdfLogs {
  add(log: {
    level: string;
    message: string;
    origin?: string;
    event?: string;
    target?: string;
    data?: unknown;
  }): number;
  /**
   * Rows oldest first. `limit` keeps the newest that match (omitted: all); `level` keeps one level;
   * `since` (ISO time) keeps rows created at or after it; `beforeId` keeps rows older than that id
   * (the cursor of the next older page).
   */
  list(options?: { limit?: number; level?: string; since?: string; beforeId?: number }): LogRow[];
}

/** Builds the loop-history API; `clear` is one transaction. */
export function createAdfLoop(db: Database.Database, clock: () => Date): AdfLoop {
  const ins = db.prepare('INSERT INTO adf_loop (role, content_json, model, tokens, created_at) VALUES (?, ?, ?, ?, ?)');
  return {
    append: (e) =>
      Number(
        ins.run(e.role, JSON.stringify(e.content ?? null), e.model ?? null, e.tokens ?? null, clock().toISOString())
          .lastInsertRowid,
      ),
    list(o = {}) {
      const rows = db
        .prepare('SELECT * FROM adf_loop WHERE seq > ? ORDER BY seq LIMIT ?')
        .all(o.afterSeq ?? 0, o.limit ?? -1) as Array<{
        seq: number;
        role: string;
        content_json: string;
        model: string | null;
        tokens: number | null;
        created_at: string;
      }>;
      return rows.map((r) => ({
        seq: r.seq,
        role: r.role,
        content: JSON.parse(r.content_json) as unknown,
        model: r.model,
        tokens: r.tokens,
        createdAt: r.created_at,
      }));
    },
    clear: () => db.prepare('DELETE FROM adf_loop').run().changes,
  };
}

/** Builds the inbox or outbox API. */
export function createAdfMail(
  db: Database.Database,
  table: 'adf_inbox' | 'adf_outbox',
  clock: () => Date,
  emit: (e: AdfEvent) => void = () => undefined,
): AdfMail {
  const atCol = table === 'adf_inbox' ? 'received_at' : 'created_at';
  const toRow = (r: Record<string, unknown>): MailRow => ({
    id: r['id'] as string,
    messageId: r['message_id'] as string | null,
    from: r['from'] as string | null,
    to: r['to'] as string | null,
    threadId: r['thread_id'] as string | null,
    parentId: r['parent_id'] as string | null,
    subject: r['subject'] as string | null,
    content: r['content'] as string,
    contentType: r['content_type'] as string | null,
    meta: JSON.parse(r['meta'] as string) as Record<string, unknown>,
    status: r['status'] as string,
    originalMessage: r['original_message'] as string | null,
    at: r[atCol] as string,
  });
  const get = db.prepare(`SELECT * FROM ${table} WHERE id = ?`);
  return {
    insert(m) {
      const id = randomUUID();
      const cols: Record<string, unknown> = {
        id,
        message_id: m.messageId ?? null,
        from: m.from ?? null,
        to: m.to ?? null,
        thread_id: m.threadId ?? null,
        parent_id: m.parentId ?? null,
        subject: m.subject ?? null,
        content: m.content,
        content_type: m.contentType ?? null,
        meta: JSON.stringify(m.meta ?? {}),
        original_message: m.originalMessage ?? null,
        [atCol]: clock().toISOString(),
      };
      if (table === 'adf_inbox') {
        cols['source'] = m.source ?? 'mesh';
        cols['sent_at'] = m.sentAt ?? null;
      } else cols['address'] = m.address ?? null;
      const keys = Object.keys(cols);
      db.prepare(
        `INSERT INTO ${table} (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`,
      ).run(...keys.map((k) => cols[k]));
      const row = toRow(get.get(id) as Record<string, unknown>);
      emit(table === 'adf_inbox' ? { kind: 'inbox', row, source: String(cols['source']) } : { kind: 'outbox', row });
      return row;
    },
    list(o = {}) {
      const order = o.newestFirst ? `${atCol} DESC, rowid DESC` : `${atCol}, rowid`;
      const rows = (
        o.status
          ? db.prepare(`SELECT * FROM ${table} WHERE status = ? ORDER BY ${order} LIMIT ?`).all(o.status, o.limit ?? -1)
          : db.prepare(`SELECT * FROM ${table} ORDER BY ${order} LIMIT ?`).all(o.limit ?? -1)
      ) as Array<Record<string, unknown>>;
      return rows.map(toRow);
    },
    get: (id) => {
      const r = get.get(id) as Record<string, unknown> | undefined;
      return r && toRow(r);
    },
    setStatus: (id, status, o = {}) =>
      (o.onlyFrom === undefined
        ? db.prepare(`UPDATE ${table} SET status = ? WHERE id = ?`).run(status, id)
        : db.prepare(`UPDATE ${table} SET status = ? WHERE id = ? AND status = ?`).run(status, id, o.onlyFrom)
      ).changes === 1,
  };
}

/** Builds the timer API. Locked timers cannot be deleted without `bypassLock`. */
export function createAdfTimers(
  db: Database.Database,
  clock: () => Date,
  emit: (e: AdfEvent) => void = () => undefined,
): AdfTimers {
  return {
    add(t) {
      const id = Number(
        db
          .prepare(
            'INSERT INTO adf_timers (schedule_json, next_wake_at, payload, scope, lambda, locked, ' +
              'created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            JSON.stringify(t.schedule),
            t.nextWakeAt ?? null,
            t.payload ?? null,
            JSON.stringify(t.scope ?? ['system']),
            t.lambda ?? null,
            t.locked ? 1 : 0,
            clock().toISOString(),
          ).lastInsertRowid,
      );
      emit({ kind: 'timers', change: 'add', id });
      return id;
    },
    list: () =>
      (db.prepare('SELECT * FROM adf_timers ORDER BY id').all() as Array<Record<string, unknown>>).map((r) => ({
        id: r['id'] as number,
        schedule: JSON.parse(r['schedule_json'] as string) as unknown,
        nextWakeAt: r['next_wake_at'] as string | null,
        payload: r['payload'] as string | null,
        scope: JSON.parse(r['scope'] as string) as string[],
        lambda: r['lambda'] as string | null,
        runCount: r['run_count'] as number,
        locked: r['locked'] === 1,
        expired: r['expired'] === 1,
      })),
    delete(id, o = {}) {
      const sql = o.bypassLock
        ? 'DELETE FROM adf_timers WHERE id = ?'
        : 'DELETE FROM adf_timers WHERE id = ? AND locked = 0';
      const deleted = db.prepare(sql).run(id).changes === 1;
      if (deleted) emit({ kind: 'timers', change: 'delete', id });
      return deleted;
    },
    markFired(id, next) {
      db.prepare(
        'UPDATE adf_timers SET run_count = run_count + 1, last_fired_at = ?, next_wake_at = ?, expired = ? ' +
          'WHERE id = ?',
      ).run(clock().toISOString(), next, next === null ? 1 : 0, id);
    },
  };
}

/** Builds the log API; inserting and trimming to `maxRows()` is one transaction. */
export function createAdfLogs(
  db: Database.Database,
  clock: () => Date,
  maxRows: () => number,
  emit: (e: AdfEvent) => void = () => undefined,
): AdfLogs {
  const ins = db.prepare(
    'INSERT INTO adf_logs (level, origin, event, target, message, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const trim = db.prepare('DELETE FROM adf_logs WHERE id <= (SELECT MAX(id) FROM adf_logs) - ?');
  const add = db.transaction((l: Parameters<AdfLogs['add']>[0]) => {
    const id = Number(
      ins.run(
        l.level,
        l.origin ?? null,
        l.event ?? null,
        l.target ?? null,
        l.message,
        l.data === undefined ? null : JSON.stringify(l.data),
        clock().toISOString(),
      ).lastInsertRowid,
    );
    trim.run(maxRows());
    return id;
  });
  return {
    add(l) {
      const id = add.immediate(l);
      emit({
        kind: 'log',
        row: {
          id,
          level: l.level,
          origin: l.origin ?? null,
          event: l.event ?? null,
          target: l.target ?? null,
          message: l.message,
        },
      });
      return id;
    },
    list(o = {}) {
      // One statement; every filter is a bound parameter.
      const filters: [string, string | number | undefined][] = [
        ['level = ?', o.level || undefined],
        ['created_at >= ?', o.since],
        ['id < ?', o.beforeId],
      ];
      const used = filters.filter((f): f is [string, string | number] => f[1] !== undefined);
      const where = used.map((f) => f[0]);
      const args = used.map((f) => f[1]);
      const filter = where.length ? ` WHERE ${where.join(' AND ')}` : '';
      const sql = `SELECT * FROM adf_logs${filter} ORDER BY id DESC LIMIT ?`;
      const rows = db.prepare(sql).all(...args, o.limit ?? -1) as Array<Record<string, unknown>>;
      return rows.reverse().map((r) => ({
        id: r['id'] as number,
        level: r['level'] as string,
        origin: r['origin'] as string | null,
        event: r['event'] as string | null,
        target: r['target'] as string | null,
        message: r['message'] as string,
        data: r['data'] === null ? null : (JSON.parse(r['data'] as string) as unknown),
        createdAt: r['created_at'] as string,
      }));
    },
  };
}
