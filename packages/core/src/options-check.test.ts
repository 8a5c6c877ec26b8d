import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TrustError } from './error.js';
import { checkOptions, type OptionsCheck } from './options-check.js';

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

function thrown(options: unknown): TrustError {
  try {
    checkOptions(check, options);
  } catch (e) {
    if (e instanceof TrustError) return e;
    throw e;
  }
  throw new Error('checkOptions accepted the options');
}

describe('checkOptions', () => {
  it('returns the very options object it was given when they are valid', () => {
    const options = { timeoutMs: 10, limits: { maxBytes: 1 } };
    expect(checkOptions(check, options)).toBe(options);
  });

  it('names an unknown key with a did-you-mean hint, at the root and nested', () => {
    const e = thrown({ timeoutMS: 10, limits: { maxBytes: 1, maxByte: 1 } });
    expect(e).toHaveTrustCode('AGENT_OPTIONS_INVALID');
    expect(e.message).toMatch(/^createThing options are invalid \(2 problems\)/);
    expect([...e.problems].sort((a, b) => (a.path ?? '').localeCompare(b.path ?? ''))).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('AGENT_OPTIONS_UNKNOWN_KEY'),
        path: 'limits.maxByte',
        hint: expect.stringMatching(/did you mean "maxBytes"/),
      }),
      expect.objectContaining({
        code: expect.toBeTrustCode('AGENT_OPTIONS_UNKNOWN_KEY'),
        path: 'timeoutMS',
        hint: expect.stringMatching(/did you mean "timeoutMs"/),
      }),
    ]);
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
    try {
      checkOptions(
        { ...check, hintFor: (path) => (path[0] === 'timeoutMs' ? 'use 1000' : undefined) },
        { timeoutMs: 0 },
      );
      expect.unreachable();
    } catch (e) {
      expect((e as TrustError).problems[0]?.hint).toBe('use 1000');
    }
  });

  it('refuses a non-object with the invalid code', () => {
    expect(() => checkOptions(check, 42)).toThrowTrustError('AGENT_OPTIONS_INVALID');
  });
});
