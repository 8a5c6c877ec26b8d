import type { AdfEvent } from '../adf/adf-events.js';
import type { TRIGGER_TYPES } from '../config/agent-config-schema.js';

/** A trigger type from the config schema. */
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/**
 * One event the runtime raises where it happens. `fields` are the concrete strings filters
 * match against (never patterns); `data` is the JSON handed to a system lambda or, framed as an
 * automated event, to the loop.
 */
export interface TriggerEvent {
  readonly type: TriggerType;
  readonly fields: Readonly<Record<string, string>>;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Largest text copied from a message or log into an event's data. */
const EVENT_TEXT_CAP = 4000;
const cap = (s: string) => (s.length > EVENT_TEXT_CAP ? `${s.slice(0, EVENT_TEXT_CAP)}…` : s);
const defined = (o: Record<string, string | null | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string'));

/**
 * Origin of the log rows the dispatcher writes about its own firings. They never become
 * `on_logs` events: each firing would otherwise fire the next.
 */
export const TRIGGER_LOG_ORIGIN = 'trigger';

/**
 * Maps a change in the `.adf` file to the trigger event it raises, or `undefined` when it raises
 * none (timer-table edits, and the dispatcher's own log rows).
 *
 * @example
 * triggerEventOf({ kind: 'file', path: 'docs/a.md', change: 'write' });
 * // { type: 'on_file_change', fields: { path: 'docs/a.md', event: 'write' }, data: { path: 'docs/a.md', change:
 * 'write' } }
 */
export function triggerEventOf(e: AdfEvent): TriggerEvent | undefined {
  switch (e.kind) {
    case 'file':
      return {
        type: 'on_file_change',
        fields: { path: e.path, event: e.change },
        data: { path: e.path, change: e.change },
      };
    case 'inbox':
      // `sender` is filterable only when the runtime verified the signature of `from`; an
      // unsigned message's `from` is a claim, and a filter on it would let anyone pose as a trusted peer.
      return {
        type: 'on_inbox',
        fields: defined({
          source: e.source,
          sender: e.row.meta['message_verified'] === true ? e.row.from : undefined,
          to: e.row.to,
          subject: e.row.subject,
        }),
        data: {
          id: e.row.id,
          messageId: e.row.messageId,
          from: e.row.from,
          to: e.row.to,
          subject: e.row.subject,
          content: cap(e.row.content),
          stamps: e.row.meta,
          source: e.source,
        },
      };
    case 'outbox':
      return {
        type: 'on_outbox',
        fields: defined({ to: e.row.to, status: e.row.status, subject: e.row.subject }),
        data: {
          id: e.row.id,
          messageId: e.row.messageId,
          to: e.row.to,
          subject: e.row.subject,
          status: e.row.status,
          content: cap(e.row.content),
        },
      };
    case 'task':
      return {
        type: e.change === 'create' ? 'on_task_create' : 'on_task_complete',
        fields: { tool: e.task.tool, status: e.task.status, origin: e.task.origin },
        data: { id: e.task.id, tool: e.task.tool, status: e.task.status, origin: e.task.origin, error: e.task.error },
      };
    case 'log':
      if (e.row.origin === TRIGGER_LOG_ORIGIN) return undefined;
      return {
        type: 'on_logs',
        fields: defined({ level: e.row.level, origin: e.row.origin, event: e.row.event, target: e.row.target }),
        data: {
          id: e.row.id,
          level: e.row.level,
          origin: e.row.origin,
          event: e.row.event,
          target: e.row.target,
          message: cap(e.row.message),
        },
      };
    case 'timers':
      return undefined;
  }
}
