import { describe, expect, it } from 'vitest';
import { createTriggerGuard, DEFAULT_TRIGGER_LIMITS } from '../triggers/trigger-guard.js';
import { checkOptions } from './strict-options.js';
import { describeStrictOptions } from './strict-options.test-helper.js';
import { triggerGuardLimitsSchema } from './trigger-guard-options.js';

const clock = () => new Date(0);

describeStrictOptions('createTriggerGuard checks its limits once, strictly', [
  {
    name: 'createTriggerGuard',
    make: (x) => createTriggerGuard({ ...DEFAULT_TRIGGER_LIMITS, ...x }, clock),
    typo: 'maxDepht',
    meant: 'maxDepth',
    wrong: -1,
  },
]);

describe('trigger guard limits', () => {
  it('returns the very limits object', () => {
    const limits = { ...DEFAULT_TRIGGER_LIMITS, maxDepth: 2 };
    expect(checkOptions('createTriggerGuard', triggerGuardLimitsSchema, limits)).toBe(limits);
  });

  it('refuses limits with a bound left out (no default applies here)', () => {
    const { windowMs: _left, ...partial } = DEFAULT_TRIGGER_LIMITS;
    expect(() => createTriggerGuard(partial as never, clock)).toThrow(/windowMs/);
    expect(() => createTriggerGuard(partial as never, clock)).toThrowTrustError('AGENT_OPTIONS_INVALID');
  });
});
