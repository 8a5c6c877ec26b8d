import { checkOptions as checkStrict } from '@trust/core';
import { z } from 'zod';

// The schema pieces this package's `create*` options share, and its one options check (core's
// strict check with this package's codes).

/** A value that must be a function; its signature is the TypeScript type's business. */
export const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'expected a function').describe(what);

/** An object that must have the named methods (a structural check of an injected interface). */
export const withMethods = (what: string, ...methods: readonly string[]) =>
  z
    .custom<object>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
      `expected an object with ${methods.map((m) => `${m}()`).join(', ')}`,
    )
    .describe(what);

/** A positive count or duration no larger than Node's timers keep (2^31 − 1). */
export const positive = (what: string) => z.number().positive().max(2_147_483_647).describe(what);

/** A positive whole number no larger than Node's timers keep. */
export const count = (what: string) => z.number().int().positive().max(2_147_483_647).describe(what);

/**
 * Checks `options` of the function `where` against its strict schema, once, at the boundary.
 * Throws `AGENT_OPTIONS_INVALID` listing every problem (an unknown key is
 * `AGENT_OPTIONS_UNKNOWN_KEY` with "did you mean"); returns the options unchanged, so injected
 * objects (clocks, clients, files) keep their identity.
 *
 * @example
 * const checked = checkOptions('createToolGate', toolGateOptionsSchema, options);
 */
export function checkOptions<T>(where: string, schema: z.ZodType, options: T): T {
  return checkStrict(
    { where, schema, invalidCode: 'AGENT_OPTIONS_INVALID', unknownKeyCode: 'AGENT_OPTIONS_UNKNOWN_KEY' },
    options,
  );
}
