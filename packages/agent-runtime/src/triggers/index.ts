// `@trust/agent-runtime/triggers`: events matched against config.triggers, the storm guard and the dispatcher.
export { createTriggerDispatcher } from './trigger-dispatcher.js';
export type {
  TriggerDispatcher,
  TriggerDispatcherOptions,
  TriggerFiring,
  TriggerOutcome,
  TriggerWake,
} from './trigger-dispatcher.js';
export { triggerEventOf } from './trigger-event.js';
export type { TriggerEvent, TriggerType } from './trigger-event.js';
export { DEFAULT_TRIGGER_LIMITS, createTriggerGuard } from './trigger-guard.js';
export type { TriggerCause, TriggerGuard, TriggerLimits } from './trigger-guard.js';
export { TRIGGER_FILTER_KEYS, evaluateTriggerMatch, matchesFilterValue } from './trigger-match.js';
export type { TriggerConfig } from './trigger-match.js';
export { RESERVED_TRIGGER_SOURCES, externalEvent } from './runtime-events.js';
export { MAX_TRIGGER_BATCH, triggerTimingOf } from './trigger-timing.js';
export type { TriggerTiming } from './trigger-timing.js';
export { TRIGGER_TYPES } from '../config/agent-config-schema.js';
export { createTimerClock, nodeTimerScheduler } from '../loop/timer-clock.js';
export type { TimerClock, TimerClockOptions, TimerScheduler } from '../loop/timer-clock.js';
export type { TimerFiring } from '../loop/timer-firing.js';
