import { TrustError } from '@trust/core';
import type { TriggerEvent } from './trigger-event.js';

/**
 * Sources that speak with the owner's voice. An external trigger can never claim them; the
 * control API refuses them too, this is the runtime's own check.
 */
export const RESERVED_TRIGGER_SOURCES: readonly string[] = Object.freeze(['user', 'owner', 'system']);

/** The agent was started (its timer clock armed). */
export function startupEvent(): TriggerEvent {
  return { type: 'on_startup', fields: {}, data: {} };
}

/** The owner sent a chat message. The text is not copied into the event. */
export function chatEvent(length: number): TriggerEvent {
  return { type: 'on_chat', fields: { source: 'owner' }, data: { source: 'owner', length } };
}

/** A timer fired (whatever it did). */
export function timerEvent(t: { id: number; scope: string; outcome: string; next: string | null }): TriggerEvent {
  return { type: 'on_timer', fields: { scope: t.scope, event: t.outcome }, data: { id: t.id, scope: t.scope, outcome: t.outcome, next: t.next } };
}

/** A tool call went through the gate (observational: raised after it finished). */
export function toolCallEvent(c: { tool: string; origin: string; ok: boolean; code?: string }): TriggerEvent {
  const status = c.ok ? 'ok' : 'error';
  return { type: 'on_tool_call', fields: { tool: c.tool, origin: c.origin, status }, data: { tool: c.tool, origin: c.origin, status, ...(c.code ? { code: c.code } : {}) } };
}

/** The loop called the model. */
export function llmCallEvent(c: { provider: string; model: string; ok: boolean; stopReason?: string; inputTokens?: number; outputTokens?: number }): TriggerEvent {
  const status = c.ok ? 'ok' : 'error';
  return { type: 'on_llm_call', fields: { provider: c.provider, model: c.model, status }, data: { ...c, status } };
}

/**
 * An event a local integration posted (control API `POST …/trigger`). `source` is trimmed and
 * lowercased; the owner's voices (`user`, `owner`, `system`) are refused with
 * `TRIGGER_SOURCE_FORBIDDEN`.
 *
 * @example
 * externalEvent({ source: 'ci', payload: { build: 42 } }); // { type: 'on_external', fields: { source: 'ci' }, … }
 */
export function externalEvent(input: { source: string; payload?: unknown }): TriggerEvent {
  const source = String(input.source).trim().toLowerCase();
  if (source === '' || RESERVED_TRIGGER_SOURCES.includes(source)) {
    throw new TrustError('TRIGGER_SOURCE_FORBIDDEN', `trigger source "${input.source}" is refused: it would speak with the owner's voice`, { hint: 'use a source such as "webhook" or "ci"' });
  }
  return { type: 'on_external', fields: { source }, data: { source, payload: input.payload ?? null } };
}
