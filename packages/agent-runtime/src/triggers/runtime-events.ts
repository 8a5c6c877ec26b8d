import { DEFAULT_MAX_JSON_DEPTH, TrustError, allow, checkJsonValue, deny, type Allow, type Deny } from '@trust/core';
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
  return {
    type: 'on_timer',
    fields: { scope: t.scope, event: t.outcome },
    data: { id: t.id, scope: t.scope, outcome: t.outcome, next: t.next },
  };
}

/** A tool call went through the gate (observational: raised after it finished). */
export function toolCallEvent(c: { tool: string; origin: string; ok: boolean; code?: string }): TriggerEvent {
  const status = c.ok ? 'ok' : 'error';
  return {
    type: 'on_tool_call',
    fields: { tool: c.tool, origin: c.origin, status },
    data: { tool: c.tool, origin: c.origin, status, ...(c.code ? { code: c.code } : {}) },
  };
}

/** The loop called the model. */
export function llmCallEvent(c: {
  provider: string;
  model: string;
  ok: boolean;
  stopReason?: string;
  inputTokens?: number;
  outputTokens?: number;
}): TriggerEvent {
  const status = c.ok ? 'ok' : 'error';
  return { type: 'on_llm_call', fields: { provider: c.provider, model: c.model, status }, data: { ...c, status } };
}

/**
 * What a trigger source may be: 1 to 64 ASCII letters, digits, `_`, `.` or `-`, compared in
 * lowercase. Nothing else is normalised, so no spelling of a reserved name (a zero-width space,
 * a full-width letter, a NUL, surrounding spaces) can slip past the reserved list.
 */
const SOURCE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The event handed to a lambda is `{ type, trigger, fields, data: { source, payload } }`: the
 * payload sits two levels down, so it may nest two levels less than the cap for the whole.
 */
export const MAX_TRIGGER_PAYLOAD_DEPTH = DEFAULT_MAX_JSON_DEPTH - 2;

/**
 * Decides whether `raw` may name an external trigger source; on allow, `source` is its lowercase
 * form. Denies `TRIGGER_SOURCE_INVALID` (not `[A-Za-z0-9_.-]{1,64}`) or `TRIGGER_SOURCE_FORBIDDEN`
 * (one of the owner's voices: `user`, `owner`, `system`, in any case).
 *
 * @example
 * evaluateTriggerSource('CI'); // { allow: true, rule: 'trigger-source', source: 'ci' }
 * evaluateTriggerSource('\u200buser'); // deny TRIGGER_SOURCE_INVALID
 */
export function evaluateTriggerSource(raw: unknown): (Allow & { readonly source: string }) | Deny {
  if (typeof raw !== 'string' || !SOURCE.test(raw)) {
    return deny(
      'TRIGGER_SOURCE_INVALID',
      `trigger source ${JSON.stringify(String(raw).slice(0, 80))} is not 1-64 of A-Z a-z 0-9 _ . -`,
      {
        rule: 'trigger-source',
        hint: 'name the source plainly, e.g. "webhook" or "ci"',
      },
    );
  }
  const source = raw.toLowerCase();
  if (RESERVED_TRIGGER_SOURCES.includes(source)) {
    return deny(
      'TRIGGER_SOURCE_FORBIDDEN',
      `trigger source "${raw}" is refused: it would speak with the owner's voice`,
      { rule: 'trigger-source', hint: 'use a source such as "webhook" or "ci"' },
    );
  }
  return { ...allow('trigger-source'), source };
}

/**
 * An event a local integration posted (control API `POST …/trigger`). The source must pass
 * {@link evaluateTriggerSource} (`TRIGGER_SOURCE_INVALID`, `TRIGGER_SOURCE_FORBIDDEN`); the
 * payload may nest at most {@link MAX_TRIGGER_PAYLOAD_DEPTH} levels (`INPUT_TOO_DEEP`), checked
 * iteratively before anything recursive (logging, the sandbox) sees it.
 *
 * @example
 * externalEvent({ source: 'ci', payload: { build: 42 } }); // { type: 'on_external', fields: { source: 'ci' }, … }
 */
export function externalEvent(input: { source: string; payload?: unknown }): TriggerEvent {
  const verdict = evaluateTriggerSource(input.source);
  if (!verdict.allow)
    throw new TrustError(verdict.code, verdict.reason, {
      decision: verdict,
      ...(verdict.hint === undefined ? {} : { hint: verdict.hint }),
    });
  const shape = checkJsonValue(input.payload ?? null, { maxDepth: MAX_TRIGGER_PAYLOAD_DEPTH });
  if (!shape.allow) {
    throw new TrustError(shape.code, `the trigger payload ${shape.reason.replace(/^the input /, '')}`, {
      decision: shape,
      hint: `send a payload nested at most ${MAX_TRIGGER_PAYLOAD_DEPTH} levels`,
    });
  }
  return {
    type: 'on_external',
    fields: { source: verdict.source },
    data: { source: verdict.source, payload: input.payload ?? null },
  };
}
