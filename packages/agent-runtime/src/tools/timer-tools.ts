import { TrustError } from '@trust/core';
import type { ToolDefinition } from '../gate/tool-definition.js';
import { parseLambdaRef } from '../code/code-runner.js';
import { nextCronWake, parseCronSchedule } from './cron-schedule.js';

interface SetTimerArgs {
  kind: 'once' | 'delay' | 'interval' | 'cron';
  at?: string;
  ms?: number;
  cron?: string;
  tz?: string;
  payload?: string;
  lambda?: string;
  scope?: 'agent' | 'system';
}

/** Earliest interval accepted, so a timer cannot spin the runtime. */
export const MIN_TIMER_INTERVAL_MS = 1000;

/**
 * sys_set_timer: stores a timer in adf_timers. `scope: agent` wakes the loop with the payload;
 * `scope: system` runs `lambda` ("file.js:fn") with that file's authorization.
 */
export function createSetTimerTool(clock: () => Date): ToolDefinition<SetTimerArgs> {
  return {
    name: 'sys_set_timer',
    description:
      'Set a timer: kind "once" at an ISO time, "delay" after ms, "interval" every ms (>= 1000), or "cron" ' +
      'on a cron schedule (5 fields, e.g. "*/15 * * * *"; tz default UTC). scope "agent" wakes you with ' +
      'payload; "system" runs lambda "file.js:fn".',
    inputSchema: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['once', 'delay', 'interval', 'cron'], description: 'Schedule kind.' },
        at: { type: 'string', description: 'once: ISO 8601 time.' },
        ms: { type: 'integer', description: 'delay/interval: milliseconds.' },
        cron: {
          type: 'string',
          description:
            'cron: "minute hour day-of-month month day-of-week" (a sixth leading field is seconds), or a ' +
            'macro like "@daily".',
          maxLength: 200,
        },
        tz: { type: 'string', description: 'cron: IANA time zone of the fields (default UTC).', maxLength: 64 },
        payload: { type: 'string', description: 'Text delivered when the timer fires.', maxLength: 10_000 },
        lambda: { type: 'string', description: 'system scope: "file.js:fn".', maxLength: 1024 },
        scope: { type: 'string', enum: ['agent', 'system'], description: 'Who handles it (default agent).' },
      },
      required: ['kind'],
      additionalProperties: false,
    },
    // A system timer runs its lambda with that file's authorization: like sys_lambda, the model
    // needs approval to point one at an authorized file, and unauthorized code cannot.
    authorizedTarget(args) {
      if (args.scope !== 'system' || !args.lambda) return undefined;
      try {
        return parseLambdaRef(args.lambda).file;
      } catch {
        return undefined;
      }
    },
    run(args, ctx) {
      const now = clock().getTime();
      let next: number;
      let schedule: Record<string, unknown>;
      if ((args.cron !== undefined || args.tz !== undefined) && args.kind !== 'cron')
        throw new TrustError('TIMER_INVALID', `cron and tz belong to kind "cron", not "${args.kind}"`);
      if (args.kind === 'cron') {
        if (args.cron === undefined)
          throw new TrustError('TIMER_CRON_INVALID', 'cron timers need "cron", e.g. "*/15 * * * *"', {
            hint: 'five fields: minute hour day-of-month month day-of-week',
          });
        if (args.at !== undefined || args.ms !== undefined)
          throw new TrustError('TIMER_INVALID', 'a cron timer takes cron (and tz), not at or ms');
        const cron = parseCronSchedule(args.cron, args.tz ?? 'UTC');
        next = nextCronWake(cron, new Date(now)).getTime();
        schedule = { kind: 'cron', cron: cron.cron, tz: cron.tz };
      } else if (args.kind === 'once') {
        next = Date.parse(args.at ?? '');
        if (!Number.isFinite(next)) throw new TrustError('TIMER_INVALID', 'once needs "at" as an ISO 8601 time');
      } else {
        if (!Number.isInteger(args.ms) || (args.ms ?? 0) < (args.kind === 'interval' ? MIN_TIMER_INTERVAL_MS : 0))
          throw new TrustError(
            'TIMER_INVALID',
            `${args.kind} needs ms${args.kind === 'interval' ? ` >= ${MIN_TIMER_INTERVAL_MS}` : ' >= 0'}`,
          );
        next = now + args.ms!;
      }
      if (args.kind !== 'cron')
        schedule = {
          kind: args.kind,
          ...(args.at ? { at: args.at } : {}),
          ...(args.ms !== undefined ? { ms: args.ms } : {}),
        };
      const scope = args.scope ?? 'agent';
      if (scope === 'system' && !/^[\w./-]+\.(js|mjs|ts):[A-Za-z_$][\w$]*$/.test(args.lambda ?? ''))
        throw new TrustError('TIMER_INVALID', 'system scope needs lambda "file.js:fn"');
      const id = ctx.adf.timers.add({
        schedule: schedule!,
        nextWakeAt: new Date(next).toISOString(),
        ...(args.payload ? { payload: args.payload } : {}),
        scope: [scope],
        ...(args.lambda ? { lambda: args.lambda } : {}),
      });
      return { id, nextWakeAt: new Date(next).toISOString() };
    },
  };
}

/** sys_list_timers: every stored timer. */
export const sysListTimersTool: ToolDefinition<Record<string, never>> = {
  name: 'sys_list_timers',
  description: 'List your timers.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: (_args, ctx) => ({ timers: ctx.adf.timers.list() }),
};

/** sys_delete_timer: deletes a timer; a locked timer needs authorized code. */
export const sysDeleteTimerTool: ToolDefinition<{ id: number }> = {
  name: 'sys_delete_timer',
  description: 'Delete one of your timers by id.',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'integer', description: 'Timer id.' } },
    required: ['id'],
    additionalProperties: false,
  },
  run(args, ctx) {
    const timer = ctx.adf.timers.list().find((t) => t.id === args.id);
    if (!timer) throw new TrustError('ADF_NOT_FOUND', `timer ${args.id} does not exist`);
    if (timer.locked && !ctx.authorized)
      throw new TrustError(
        'TIMER_LOCKED',
        `timer ${args.id} is locked; only the owner or authorized code may delete it`,
      );
    ctx.adf.timers.delete(args.id, { bypassLock: ctx.authorized });
    return { deleted: args.id };
  },
};
