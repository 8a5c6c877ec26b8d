import { triggerLimitsSchema } from '../triggers/trigger-options.js';

// The strict schema of `createTriggerGuard`'s limits: every bound given (the dispatcher fills in
// the defaults before it makes the guard), checked once at the boundary.

/** The strict schema of a whole {@link TriggerLimits} (`createTriggerGuard`'s first argument). */
export const triggerGuardLimitsSchema = triggerLimitsSchema
  .required()
  .describe('createTriggerGuard limits, e.g. DEFAULT_TRIGGER_LIMITS or { ...DEFAULT_TRIGGER_LIMITS, maxDepth: 2 }');
