import { allow, deny, type Decision } from '@trust/core';
import type { AgentConfig } from '../config/agent-config-schema.js';
import type { TriggerEvent, TriggerType } from './trigger-event.js';

/** One configured trigger (validated config). */
export type TriggerConfig = AgentConfig['triggers'][number];

/**
 * The filter keys each trigger type understands, and the event field each one reads (`tools`
 * reads the `tool` field, `watch` the file `path`). A key not listed for a type never matches:
 * a typo narrows a trigger to nothing instead of widening it to everything.
 */
export const TRIGGER_FILTER_KEYS: Readonly<Record<TriggerType, Readonly<Record<string, string>>>> = Object.freeze({
  on_startup: {},
  on_inbox: { source: 'source', sender: 'sender', to: 'to', subject: 'subject' },
  on_outbox: { to: 'to', status: 'status', subject: 'subject' },
  on_file_change: { watch: 'path', event: 'event' },
  on_chat: { source: 'source' },
  on_timer: { scope: 'scope', event: 'event' },
  on_tool_call: { tools: 'tool', origin: 'origin', status: 'status' },
  on_task_create: { tools: 'tool', status: 'status', origin: 'origin' },
  on_task_complete: { tools: 'tool', status: 'status', origin: 'origin' },
  on_logs: { level: 'level', origin: 'origin', event: 'event', target: 'target' },
  on_llm_call: { provider: 'provider', model: 'model', status: 'status' },
  on_external: { source: 'source' },
});

function globToRegExp(pattern: string, pathLike: boolean): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += pathLike ? '[^/]*' : '.*';
    } else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/**
 * Whether a filter value matches a concrete event field. Alternatives are separated by `|`; `*`
 * is a wildcard (for `watch`, `*` stays inside one path segment and `**` crosses segments).
 *
 * @example
 * matchesFilterValue('docs/*.md|README.md', 'docs/a.md', true); // true
 */
export function matchesFilterValue(pattern: string, value: string, pathLike = false): boolean {
  return pattern.split('|').some((alt) => alt !== '' && globToRegExp(alt, pathLike).test(value));
}

/**
 * Decides whether a configured trigger fires for an event: the type must be equal and every
 * filter key must be known for that type and match the event's field. An event without the field
 * does not match.
 *
 * @example
 * evaluateTriggerMatch({ type: 'on_inbox', scope: 'system', lambda: 'mail.js:onMail', filter: { source: 'mesh' } },
 * event);
 * // { allow: true, rule: 'trigger-filter' } or a deny naming the key that did not match
 */
export function evaluateTriggerMatch(trigger: TriggerConfig, event: TriggerEvent): Decision {
  if (trigger.type !== event.type)
    return deny('TRIGGER_TYPE_MISMATCH', `trigger type ${trigger.type} is not ${event.type}`);
  const keys = TRIGGER_FILTER_KEYS[trigger.type];
  for (const [key, pattern] of Object.entries(trigger.filter ?? {})) {
    const field = keys[key];
    if (field === undefined) {
      return deny('TRIGGER_FILTER_UNKNOWN', `filter "${key}" is not known for ${trigger.type}`, {
        hint: `known filters: ${Object.keys(keys).join(', ') || 'none'}`,
      });
    }
    const value = event.fields[field];
    if (value === undefined || !matchesFilterValue(pattern, value, key === 'watch')) {
      return deny(
        'TRIGGER_FILTER_MISMATCH',
        `filter ${key}="${pattern}" does not match ${value === undefined ? 'an absent value' : `"${value}"`}`,
      );
    }
  }
  return allow('trigger-filter');
}
