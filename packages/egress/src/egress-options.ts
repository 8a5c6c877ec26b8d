import { PRINCIPAL_KINDS, checkOptions, type PrincipalKind } from '@trust/core';
import { z } from 'zod';
import type { EgressGuard } from './guard.js';

// The schema pieces the `create*` functions of this package share, and its one options check
// (core's strict check with this package's codes).

/** The longest delay a Node timer keeps (2^31 − 1 ms); a larger one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A value that must be a function; its signature is the TypeScript type's business. */
export const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'expected a function').describe(what);

/** An injected object that must have the named methods (checked structurally, kept as given). */
export const withMethods = (what: string, ...methods: readonly string[]) =>
  z
    .custom<object>(
      (v) => isObject(v) && methods.every((m) => typeof v[m] === 'function'),
      `expected an object with ${methods.map((m) => `${m}()`).join(', ')}`,
    )
    .describe(what);

/** A duration in ms a Node timer can hold; `min` 0 lets 0 mean "at once". */
export const duration = (what: string, min: 0 | 'positive' = 'positive') =>
  (min === 0 ? z.number().min(0) : z.number().positive()).max(MAX_TIMER_MS).describe(what);

/** A TCP/UDP port; `min` 0 lets 0 mean "pick one". */
export const port = (what: string, min: 0 | 1 = 1) => z.number().int().min(min).max(65535).describe(what);

export const policySchema = withMethods(
  'the egress policy that decides destinations, e.g. allowHosts(["api.example.com"]) (required)',
  'authorizeHttp',
);

export const auditSchema = withMethods('where one event per decision goes, e.g. createMemoryAuditSink()', 'record');

export const principalSchema = z
  .object({
    kind: z.enum(PRINCIPAL_KINDS as readonly [PrincipalKind, ...PrincipalKind[]]).describe('e.g. "process"'),
    id: z.string().min(1).describe('a stable id, e.g. "run-1"'),
    agent: z.string().min(1).optional().describe('the agent it acts for, e.g. "main"'),
  })
  .strict()
  .describe('who connects, e.g. createPrincipal("process", "run-1")');

/** Whether `value` is a compiled guard (from `createEgressGuard`) rather than guard options. */
export function isGuard(value: unknown): value is EgressGuard {
  return isObject(value) && typeof value.resolveHost === 'function';
}

/**
 * Checks `options` of the function `where` against its strict schema, once, at the boundary.
 * Throws `EGRESS_OPTIONS_INVALID` listing every problem (an unknown key is
 * `EGRESS_OPTIONS_UNKNOWN_KEY` with "did you mean"); returns the options unchanged, so injected
 * objects (policy, audit sink, guard, resolver, clock) keep their identity. A compiled guard in
 * `guard` is injected as it is; guard *options* there are checked by the schema's `guard` field.
 *
 * @example
 * const checked = checkEgressOptions('createEgressClient', clientOptionsSchema, options);
 */
export function checkEgressOptions<T>(where: string, schema: z.ZodType, options: T): T {
  const shown = isObject(options) && isGuard(options.guard) ? { ...options, guard: undefined } : options;
  checkOptions(
    { where, schema, invalidCode: 'EGRESS_OPTIONS_INVALID', unknownKeyCode: 'EGRESS_OPTIONS_UNKNOWN_KEY' },
    shown,
  );
  return options;
}
