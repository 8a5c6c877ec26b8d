import { suggest, TrustError, type Problem } from '@trust/core';
import { z } from 'zod';

// One way for every `create*` of this package to check its options object at the boundary: a
// strict zod object (an unknown key is refused, with "did you mean"), every problem reported at
// once, each with the field's description as a hint (the description carries a valid example).

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

function knownKeys(schema: z.ZodType, names: readonly string[]): readonly string[] {
  const inner = fieldAt(schema, names);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape as object) : [];
}

function fieldAt(schema: z.ZodType, names: readonly string[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const name of names) {
    const inner: z.ZodType | undefined = current instanceof z.ZodOptional ? (current.unwrap() as z.ZodType) : current;
    if (!(inner instanceof z.ZodObject)) return undefined;
    current = (inner.shape as Record<string, z.ZodType>)[name];
  }
  return current instanceof z.ZodOptional ? (current.unwrap() as z.ZodType) : current;
}

function describeAt(schema: z.ZodType, names: readonly string[]): string | undefined {
  let current: z.ZodType | undefined = schema;
  let description = schema.description;
  for (const name of names) {
    const inner: z.ZodType | undefined = current instanceof z.ZodOptional ? (current.unwrap() as z.ZodType) : current;
    if (!(inner instanceof z.ZodObject)) break;
    current = (inner.shape as Record<string, z.ZodType>)[name];
    if (current === undefined) break;
    description =
      current.description ??
      (current instanceof z.ZodOptional ? (current.unwrap() as z.ZodType).description : undefined);
  }
  return description;
}

function toProblems(schema: z.ZodType, issue: z.core.$ZodIssue): Problem[] {
  const names = issue.path.map(String);
  const path = names.join('.');
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(schema, names);
    return issue.keys.map((key) => {
      const guess = suggest(key, known);
      return {
        code: 'AGENT_OPTIONS_UNKNOWN_KEY',
        path: path === '' ? key : `${path}.${key}`,
        message: `unknown option ${JSON.stringify(key)}${path === '' ? '' : ` in ${path}`}`,
        hint: guess
          ? `did you mean "${guess}"? known options: ${known.join(', ')}`
          : `remove it; known options: ${known.join(', ')}`,
        severity: 'error' as const,
      };
    });
  }
  const hint = describeAt(schema, names);
  return [
    {
      code: 'AGENT_OPTIONS_INVALID',
      path,
      message: issue.message,
      ...(hint === undefined ? {} : { hint }),
      severity: 'error' as const,
    },
  ];
}

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
  const result = schema.safeParse(options);
  if (result.success) return options;
  const problems = result.error.issues.flatMap((issue) => toProblems(schema, issue));
  const first = problems[0];
  const summary = problems.map((p) => `${p.path === '' ? '(options)' : p.path}: ${p.message}`).join('; ');
  throw new TrustError('AGENT_OPTIONS_INVALID', `${where}: invalid options: ${summary}`, {
    problems,
    hint: first?.hint ?? 'see the TSDoc of the options type',
  });
}
