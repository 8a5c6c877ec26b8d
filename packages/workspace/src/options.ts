import { checkOptions } from '@trust/core';
import { z } from 'zod';

// The workspace's one options check for its own `create*`/`open*` (core's strict check with the
// workspace's codes), and the schema pieces they share.

/** A value that must be a function; its signature is the TypeScript type's business. */
export const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'expected a function').describe(what);

/**
 * An environment: variable names to values (undefined for an unset one). A custom check, not
 * `z.record`: `process.env` is not a plain object, and zod's record refuses it.
 */
export const envSchema = (what: string) =>
  z
    .custom<Readonly<Record<string, string | undefined>>>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        Object.values(v).every((x) => x === undefined || typeof x === 'string'),
      'expected an environment (names to string values)',
    )
    .describe(what);

/**
 * Checks `options` of the function `where` against its strict schema, once, at the boundary.
 * Throws `WORKSPACE_OPTIONS_INVALID` listing every problem (an unknown key is
 * `WORKSPACE_OPTIONS_UNKNOWN_KEY` with "did you mean"); returns the options unchanged, so injected
 * functions keep their identity.
 *
 * @example
 * checkWorkspaceOptions('createStudioSandbox', studioSandboxOptionsSchema, options);
 */
export function checkWorkspaceOptions<T>(where: string, schema: z.ZodType, options: T): T {
  return checkOptions(
    { where, schema, invalidCode: 'WORKSPACE_OPTIONS_INVALID', unknownKeyCode: 'WORKSPACE_OPTIONS_UNKNOWN_KEY' },
    options,
  );
}
