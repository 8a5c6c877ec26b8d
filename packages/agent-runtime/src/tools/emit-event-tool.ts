import { TrustError } from '@trust/core';
import type { ToolDefinition } from '../gate/tool-definition.js';

/** Largest `data` of one `adf.emit_event`, as JSON bytes. */
export const MAX_CUSTOM_EVENT_BYTES = 16_384;
/** The event type: `custom.` then 1–64 lowercase letters, digits, `_`, `-` or `.`. */
export const CUSTOM_EVENT_TYPE = /^custom\.[a-z0-9_][a-z0-9_.-]{0,63}$/;

/** A custom event as the host receives it. */
export interface CustomEvent {
  readonly type: string;
  readonly data: unknown;
  /** Who emitted it: the file of the lambda, or `sys_code`. */
  readonly from: string;
}

/**
 * `adf.emit_event({ type, data? })`: agent code tells the host something (a `custom.*` event).
 * Only the `custom.` namespace exists, so code can never forge a runtime event (`turn`,
 * `approval`, …); `data` is bounded JSON. Each event is logged (`adf_logs`, origin `code`), audited
 * (`event.emit`) and passed to `emit` (the agent hands it to its `onEvent` as `{ kind: 'custom' }`).
 *
 * @example
 * // in agent code: await adf.emit_event({ type: 'custom.progress', data: { done: 3, of: 10 } });
 */
export function createEmitEventTool(
  emit: (event: CustomEvent) => void,
): ToolDefinition<{ type: string; data?: unknown }, { type: string }> {
  return {
    name: 'emit_event',
    description: 'Code only: emit a custom.* event to the host (bounded JSON data).',
    inputSchema: {
      type: 'object',
      properties: {
        type: { type: 'string', description: 'Event type, e.g. "custom.progress".', maxLength: 71 },
        data: { description: `Any JSON value, at most ${MAX_CUSTOM_EVENT_BYTES} bytes.` },
      },
      required: ['type'],
      additionalProperties: false,
    },
    run(args, ctx) {
      if (!CUSTOM_EVENT_TYPE.test(args.type))
        throw new TrustError('EVENT_TYPE_INVALID', `"${args.type.slice(0, 80)}" is not a custom event type`, {
          hint: 'use custom.<name>, e.g. "custom.progress" (lowercase letters, digits, _ - .)',
        });
      const json = JSON.stringify(args.data ?? null);
      if (Buffer.byteLength(json, 'utf8') > MAX_CUSTOM_EVENT_BYTES)
        throw new TrustError('EVENT_TOO_LARGE', `event data is larger than ${MAX_CUSTOM_EVENT_BYTES} bytes`, {
          hint: 'send a smaller summary, or write the details to a file and send its path',
        });
      const data: unknown = JSON.parse(json);
      ctx.adf.logs.add({ level: 'info', origin: 'code', event: args.type, target: ctx.principal.id, message: json });
      ctx.audit.record({
        principal: ctx.principal,
        action: 'event.emit',
        target: args.type,
        decision: 'allow',
        rule: 'emit-event',
        details: { bytes: json.length },
      });
      try {
        emit({ type: args.type, data, from: ctx.principal.id });
      } catch {
        /* a host observer never breaks agent code */
      }
      return { type: args.type };
    },
  };
}
