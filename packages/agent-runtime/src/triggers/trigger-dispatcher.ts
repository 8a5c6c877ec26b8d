import { TrustError, createPrincipal, type Decision, type Principal } from '@trust/core';
import { checkOptions } from '../options/strict-options.js';
import { triggerDispatcherOptionsSchema } from './trigger-options.js';
import type { AdfFile } from '../adf/adf-file.js';
import type { CodeRunner } from '../code/code-runner.js';
import { parseLambdaRef } from '../code/code-runner.js';
import { createTriggerCauseScope } from './trigger-cause-scope.js';
import { TRIGGER_LOG_ORIGIN, type TriggerEvent, type TriggerType } from './trigger-event.js';
import { DEFAULT_TRIGGER_LIMITS, createTriggerGuard, type TriggerCause, type TriggerLimits } from './trigger-guard.js';
import { evaluateTriggerMatch, type TriggerConfig } from './trigger-match.js';
import { externalEvent } from './runtime-events.js';
import {
  combineCauses,
  createTriggerTimer,
  timedEventOf,
  triggerTimingOf,
  type TimedFiring,
} from './trigger-timing.js';
import { nodeTimerScheduler, type TimerScheduler } from '../loop/timer-clock.js';

/**
 * What one matching trigger did. `deferred`: a trigger with `debounce_ms`, `interval_ms` or
 * `batch_ms` held the event; its firing comes later (and is logged and audited then).
 */
export type TriggerOutcome = 'ran' | 'failed' | 'woke' | 'queued' | 'skipped' | 'refused' | 'deferred';

/** One firing of one configured trigger (its index in `config.triggers`). */
export interface TriggerFiring {
  readonly index: number;
  readonly type: TriggerType;
  readonly scope: 'system' | 'agent';
  readonly outcome: TriggerOutcome;
  /** For `failed`, `refused` and `skipped`: a stable code. */
  readonly code?: string;
  readonly detail: string;
  /** How many firings led to this one (0: an outside event). */
  readonly depth: number;
}

/** What waking the loop did: started it, queued the wake behind a running activation, or could not. */
export interface TriggerWake {
  readonly outcome: 'woke' | 'queued' | 'busy';
  readonly detail?: string;
}

/** Options of {@link createTriggerDispatcher}. */
export interface TriggerDispatcherOptions {
  readonly adf: AdfFile;
  readonly runner: CodeRunner;
  /**
   * Wakes the loop with a framed text (agent scope, autonomous mode only). It must not await the
   * whole activation: a loop waiting for an approval would block every trigger behind it.
   */
  readonly wake: (text: string) => TriggerWake | Promise<TriggerWake>;
  readonly clock?: () => Date;
  readonly limits?: Partial<TriggerLimits>;
  /** Agent id for audit principals. */
  readonly agentId?: string;
  /**
   * Schedules the releases of timed triggers (`debounce_ms`, `interval_ms`, `batch_ms`); default Node's timers,
   * unref'd.
   */
  readonly scheduler?: TimerScheduler;
}

/** Matches an agent's events against its configured triggers and runs them. */
export interface TriggerDispatcher {
  /**
   * Queues an event raised somewhere in the runtime, without waiting. Costs one config read when no trigger of its type
   * exists.
   */
  emit(event: TriggerEvent): void;
  /** Queues an event and resolves with what fired for it (never rejects). */
  dispatch(event: TriggerEvent): Promise<TriggerFiring[]>;
  /**
   * Builds the `on_external` event of an outside trigger and dispatches it. A refused source or
   * payload (see `externalEvent`) is audited (`trigger.receive`, deny) and thrown.
   */
  dispatchExternal(input: { source: string; payload?: unknown }): Promise<TriggerFiring[]>;
  /**
   * Resolves when every event queued so far has been dispatched (events held by timed triggers wait for their release).
   */
  idle(): Promise<void>;
  /** Stops dispatching; queued and held events are dropped. */
  close(): void;
}

const WAKE_TEXT_CAP = 8000;

/** The text a trigger wakes the loop with: clearly an automated event, never the owner's words. */
export function triggerWakeText(index: number, event: TriggerEvent): string {
  const body = JSON.stringify({ type: event.type, fields: event.fields, data: event.data });
  const shown = body.length > WAKE_TEXT_CAP ? `${body.slice(0, WAKE_TEXT_CAP)}…` : body;
  return (
    `[trigger ${event.type} #${index}] An automated event raised by the runtime, ` +
    `not a message from your owner.\n${shown}`
  );
}

/**
 * Creates an agent's trigger dispatcher. Events are dispatched one at a time, in order. For each
 * trigger whose type and filters match (in config order):
 * 1. the guard decides (no self re-firing, chain depth, per-trigger and total rate); a refusal
 *    fails closed;
 * 2. `system` scope runs the lambda `file.js:fn` through `runner.runSystemLambda`, so it has
 *    exactly its own file's authorization; `agent` scope wakes the loop only when the agent is
 *    autonomous, otherwise it is skipped;
 * 3. the firing is written to `adf_logs` (origin `trigger`) and audited (`trigger.fire`).
 * Effects of a firing (a file it writes, a tool it calls, the loop it wakes) raise events one
 * level deeper, carried by async context.
 *
 * @example
 * const triggers = createTriggerDispatcher({ adf, runner, wake: (text) => ({ outcome: 'busy' }) });
 * adf.events.subscribe((e) => { const ev = triggerEventOf(e); if (ev) triggers.emit(ev); });
 */
export function createTriggerDispatcher(input: TriggerDispatcherOptions): TriggerDispatcher {
  const options = checkOptions('createTriggerDispatcher', triggerDispatcherOptionsSchema, input);
  const { adf, runner } = options;
  const clock = options.clock ?? (() => new Date());
  const limits: TriggerLimits = { ...DEFAULT_TRIGGER_LIMITS, ...options.limits };
  const guard = createTriggerGuard(limits, clock);
  const scope = createTriggerCauseScope();
  let tail: Promise<unknown> = Promise.resolve();
  let pending = 0;
  let closed = false;

  const log = (level: string, event: string, target: string, message: string, data?: unknown) => {
    try {
      adf.logs.add({
        level,
        origin: TRIGGER_LOG_ORIGIN,
        event,
        target,
        message: message.slice(0, 2000),
        ...(data === undefined ? {} : { data }),
      });
    } catch {
      /* file closed */
    }
  };

  const principalOf = (t: TriggerConfig): Principal => {
    if (t.scope === 'agent') return createPrincipal('llm', 'loop', options.agentId);
    let authorized = false;
    try {
      authorized = t.lambda ? adf.files.isAuthorized(parseLambdaRef(t.lambda).file) : false;
    } catch {
      /* invalid ref: plain code */
    }
    return createPrincipal(authorized ? 'authorized-code' : 'code', t.lambda ?? 'trigger', options.agentId);
  };

  const runOne = async (
    t: TriggerConfig,
    index: number,
    event: TriggerEvent,
    cause: TriggerCause,
  ): Promise<TriggerFiring> => {
    const base = { index, type: event.type, scope: t.scope, depth: cause.depth } as const;
    const verdict: Decision = guard.evaluate(index, cause);
    if (!verdict.allow) return { ...base, outcome: 'refused', code: verdict.code, detail: verdict.reason };
    guard.record(index);
    const child: TriggerCause = { depth: cause.depth + 1, chain: [...cause.chain, index] };
    if (t.scope === 'system') {
      try {
        if (!t.lambda) throw new TrustError('TRIGGER_LAMBDA_MISSING', 'a system trigger needs "lambda": "file.js:fn"');
        const ref = parseLambdaRef(t.lambda);
        const r = await scope.run(child, () =>
          runner.runSystemLambda(ref, { type: event.type, trigger: index, fields: event.fields, data: event.data }),
        );
        return r.ok
          ? { ...base, outcome: 'ran', detail: `${t.lambda} completed` }
          : { ...base, outcome: 'failed', code: r.code, detail: `${t.lambda}: ${r.code}: ${r.message}` };
      } catch (e) {
        return {
          ...base,
          outcome: 'failed',
          code: e instanceof TrustError ? e.code : 'TRIGGER_FAILED',
          detail: e instanceof Error ? e.message : String(e),
        };
      }
    }
    if (event.type === 'on_chat') {
      return {
        ...base,
        outcome: 'skipped',
        code: 'TRIGGER_REDUNDANT',
        detail: "the owner's message already runs the loop",
      };
    }
    if (!adf.config().autonomous) {
      return {
        ...base,
        outcome: 'skipped',
        code: 'TRIGGER_NOT_AUTONOMOUS',
        detail: 'autonomous mode is off: agent-scope triggers do not start the loop',
      };
    }
    try {
      const w = await scope.run(child, () => options.wake(triggerWakeText(index, event)));
      if (w.outcome === 'busy')
        return {
          ...base,
          outcome: 'skipped',
          code: 'TRIGGER_LOOP_BUSY',
          detail: w.detail ?? 'the loop is busy and its wake queue is full',
        };
      return {
        ...base,
        outcome: w.outcome,
        detail: w.detail ?? (w.outcome === 'woke' ? 'woke the loop' : 'queued behind the running activation'),
      };
    } catch (e) {
      return {
        ...base,
        outcome: 'failed',
        code: e instanceof TrustError ? e.code : 'TRIGGER_FAILED',
        detail: e instanceof Error ? e.message : String(e),
      };
    }
  };

  const record = (t: TriggerConfig, f: TriggerFiring) => {
    const target = `${f.type}#${f.index}`;
    log(f.outcome === 'failed' || f.outcome === 'refused' ? 'warn' : 'info', `trigger.${f.outcome}`, target, f.detail, {
      scope: f.scope,
      depth: f.depth,
      ...(f.code ? { code: f.code } : {}),
      ...(t.lambda ? { lambda: t.lambda } : {}),
    });
    try {
      adf.audit.record({
        principal: principalOf(t),
        action: 'trigger.fire',
        target,
        decision: f.outcome === 'refused' ? 'deny' : 'allow',
        rule: f.outcome === 'refused' ? 'trigger-guard' : 'trigger-config',
        ...(f.code ? { code: f.code } : {}),
        details: { outcome: f.outcome, scope: f.scope, depth: f.depth, ...(t.lambda ? { lambda: t.lambda } : {}) },
      });
    } catch {
      /* file closed */
    }
  };

  const run = async (event: TriggerEvent, cause: TriggerCause): Promise<TriggerFiring[]> => {
    if (closed) return [];
    let triggers: readonly TriggerConfig[];
    try {
      triggers = adf.config().triggers;
    } catch {
      return [];
    }
    const out: TriggerFiring[] = [];
    for (const [index, t] of triggers.entries()) {
      if (closed) break;
      if (!evaluateTriggerMatch(t, event).allow) continue;
      const timing = triggerTimingOf(t);
      // A timed trigger holds the event, unless the guard would refuse it anyway (its own effect,
      // or too deep): that refusal is recorded now, as for any trigger. Rates are checked when it fires.
      if (
        timing &&
        !cause.chain.includes(index) &&
        cause.depth < limits.maxDepth &&
        timer.offer(index, t, timing, { event, cause }) === 'held'
      ) {
        const what = timing.kind === 'batch' ? `batch_ms ${timing.ms}` : `${timing.kind}_ms ${timing.ms}`;
        out.push({
          index,
          type: event.type,
          scope: t.scope,
          outcome: 'deferred',
          detail: `held by ${what}`,
          depth: cause.depth,
        });
        continue;
      }
      const f = await runOne(t, index, event, cause);
      record(t, f);
      out.push(f);
    }
    return out;
  };

  // A timed firing runs in the same one-at-a-time queue as events, with the trigger as it is
  // configured then: if it was changed or removed meanwhile, the held events are dropped.
  const runTimed = async (firing: TimedFiring): Promise<TriggerFiring[]> => {
    if (closed) return [];
    let current: TriggerConfig | undefined;
    try {
      current = adf.config().triggers[firing.index];
    } catch {
      return [];
    }
    const type = firing.events[0]!.event.type;
    if (!current || JSON.stringify(current) !== JSON.stringify(firing.trigger)) {
      log(
        'warn',
        'trigger.dropped',
        `${type}#${firing.index}`,
        `trigger #${firing.index} changed while ${firing.events.length} event(s) were held; they were dropped`,
        { code: 'TRIGGER_CHANGED' },
      );
      return [];
    }
    const f = await runOne(
      current,
      firing.index,
      timedEventOf(firing),
      combineCauses(firing.events.map((h) => h.cause)),
    );
    record(current, f);
    return [f];
  };
  const timer = createTriggerTimer({
    scheduler: options.scheduler ?? nodeTimerScheduler,
    clock,
    release: (firing) => {
      if (closed) return Promise.resolve([]);
      pending++;
      const p = tail
        .then(() => runTimed(firing))
        .catch(() => [] as TriggerFiring[])
        .finally(() => {
          pending--;
        });
      tail = p;
      return p;
    },
  });

  const enqueue = (event: TriggerEvent): Promise<TriggerFiring[]> => {
    if (closed) return Promise.resolve([]);
    const cause = scope.current();
    if (pending >= limits.maxQueue) {
      log('warn', 'trigger.dropped', event.type, `${pending} events are waiting; ${event.type} was dropped`);
      try {
        adf.audit.record({
          principal: createPrincipal('owner', 'runtime', options.agentId),
          action: 'trigger.drop',
          target: event.type,
          decision: 'deny',
          code: 'TRIGGER_QUEUE_FULL',
          rule: 'trigger-guard',
          details: { pending },
        });
      } catch {
        /* file closed */
      }
      return Promise.resolve([]);
    }
    pending++;
    const p = tail
      .then(() => run(event, cause))
      .catch(() => [] as TriggerFiring[])
      .finally(() => {
        pending--;
      });
    tail = p;
    return p;
  };

  return {
    emit(event) {
      try {
        if (closed || !adf.config().triggers.some((t) => t.type === event.type)) return;
      } catch {
        return;
      }
      void enqueue(event);
    },
    dispatch: enqueue,
    dispatchExternal(input) {
      let event: TriggerEvent;
      try {
        event = externalEvent(input);
      } catch (e) {
        const code = e instanceof TrustError ? e.code : 'TRIGGER_FAILED';
        try {
          adf.audit.record({
            principal: createPrincipal('owner', 'external-trigger', options.agentId),
            action: 'trigger.receive',
            target: 'on_external',
            decision: 'deny',
            code,
            rule: 'trigger-input',
          });
        } catch {
          /* file closed */
        }
        return Promise.reject(e);
      }
      return enqueue(event);
    },
    idle: async () => {
      while (pending > 0) await tail;
    },
    close() {
      closed = true;
      timer.close();
    },
  };
}
