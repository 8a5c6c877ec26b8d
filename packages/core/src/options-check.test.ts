import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkOptions, type OptionsCheck } from './options-check.js';
import { thrownBy } from './testing/thrown-by.js';

const schema = z
  .object({
    timeoutMs: z.number().int().positive().optional().describe('a timeout in ms, e.g. 5000'),
    limits: z
      .object({ maxBytes: z.number().positive().describe('a byte cap, e.g. 1024') })
      .strict()
      .optional()
      .describe('limits, e.g. { maxBytes: 1024 }'),
  })
  .strict();

const check: OptionsCheck<'AGENT_OPTIONS_INVALID', 'AGENT_OPTIONS_UNKNOWN_KEY'> = {
  where: 'createThing',
  schema,
  invalidCode: 'AGENT_OPTIONS_INVALID',
  unknownKeyCode: 'AGENT_OPTIONS_UNKNOWN_KEY',
};

const thrown = (options: unknown) => thrownBy(() => checkOptions(check, options));

describe('checkOptions', () => {
  it('returns the very options object it was given when they are valid', () => {
    const options = { timeoutMs: 10, limits: { maxBytes: 1 } };
    expect(checkOptions(check, options)).toBe(options);
  });

  it('names an unknown key with a did-you-mean hint, at the root and nested', () => {
    expect(thrown({ timeoutMS: 10, limits: { maxBytes: 1, maxByte: 1 } })).toRefuseOptions(
      'AGENT_OPTIONS_INVALID',
      [
        { code: 'AGENT_OPTIONS_UNKNOWN_KEY', path: 'limits.maxByte', hint: /did you mean "maxBytes"/ },
        { code: 'AGENT_OPTIONS_UNKNOWN_KEY', path: 'timeoutMS', hint: /did you mean "timeoutMs"/ },
      ],
      /^createThing options are invalid \(2 problems\)/,
    );
  });

  it('reports every invalid field at once, each with its field description as the hint', () => {
    const e = thrown({ timeoutMs: -1, limits: { maxBytes: 'x' } });
    expect(e.problems.map((p) => [p.code, p.path, p.hint])).toEqual([
      ['AGENT_OPTIONS_INVALID', 'timeoutMs', 'a timeout in ms, e.g. 5000'],
      ['AGENT_OPTIONS_INVALID', 'limits.maxBytes', 'a byte cap, e.g. 1024'],
    ]);
    expect(e.hint).toBe('a timeout in ms, e.g. 5000');
  });

  it('lets the caller override the hint of a field', () => {
    const e = thrown({ timeoutMs: 0 });
    expect(e.problems[0]?.hint).toBe('a timeout in ms, e.g. 5000');
    const overridden = {
      ...check,
      hintFor: (path: readonly string[]) => (path[0] === 'timeoutMs' ? 'use 1000' : undefined),
    };
    expect(thrownBy(() => checkOptions(overridden, { timeoutMs: 0 })).problems[0]?.hint).toBe('use 1000');
  });

  it('refuses a non-object with the invalid code', () => {
    expect(() => checkOptions(check, 42)).toThrowTrustError('AGENT_OPTIONS_INVALID');
  });
});
