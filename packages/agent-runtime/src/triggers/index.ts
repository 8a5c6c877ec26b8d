export { createTriggerDispatcher, triggerWakeText } from './trigger-dispatcher.js';
export type {
  TriggerDispatcher,
  TriggerDispatcherOptions,
  TriggerFiring,
  TriggerOutcome,
  TriggerWake,
} from './trigger-dispatcher.js';
export { TRIGGER_LOG_ORIGIN, triggerEventOf } from './trigger-event.js';
export type { TriggerEvent, TriggerType } from './trigger-event.js';
export { DEFAULT_TRIGGER_LIMITS, ROOT_CAUSE, createTriggerGuard } from './trigger-guard.js';
export type { TriggerCause, TriggerGuard, TriggerLimits } from './trigger-guard.js';
export { TRIGGER_FILTER_KEYS, evaluateTriggerMatch, matchesFilterValue } from './trigger-match.js';
export type { TriggerConfig } from './trigger-match.js';
export {
  RESERVED_TRIGGER_SOURCES,
  chatEvent,
  externalEvent,
  llmCallEvent,
  startupEvent,
  timerEvent,
  toolCallEvent,
} from './runtime-events.js';
export { createTriggerCauseScope } from './trigger-cause-scope.js';
export type { TriggerCauseScope } from './trigger-cause-scope.js';
export {
  MAX_TRIGGER_BATCH,
  combineCauses,
  createTriggerTimer,
  timedEventOf,
  triggerTimingOf,
} from './trigger-timing.js';
export type { HeldEvent, TimedFiring, TriggerTimer, TriggerTiming } from './trigger-timing.js';
