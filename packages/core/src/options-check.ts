import { z } from 'zod';
import { type Problem, TrustError } from './error.js';
import { suggest } from './suggest.js';
import type { TrustErrorCode } from './trust-error-code.js';

// One way for every `create*` in trust to check its options object at the boundary: a strict zod
// object (an unknown key is refused, with "did you mean"), every problem reported at once, each
// with a hint: the field's schema description, which carries a valid example.

/** How `checkOptions` names and codes what it finds. */
export interface OptionsCheck<I extends TrustErrorCode, U extends TrustErrorCode> {
  /** The function whose options these are, e.g. `'createSandbox'`; it starts the message. */
  readonly where: string;
  /** A strict zod object (nested objects strict too). */
  readonly schema: z.ZodType;
  /** The thrown code, and the code of each problem that is not an unknown key. */
  readonly invalidCode: I;
  /** The code of each unknown-key problem. */
  readonly unknownKeyCode: U;
  /** A hint for the field at `path` that wins over the schema's description. */
  readonly hintFor?: (path: readonly string[]) => string | undefined;
}

/** The field named `name` of `schema` as declared (wrappers kept), or undefined for a non-object. */
function child(schema: z.ZodType, name: string): z.ZodType | undefined {
  const inner = unwrap(schema);
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>)[name] : undefined;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** The field at `names` (wrappers removed), undefined past a non-object or a missing name. */
function fieldAt(schema: z.ZodType, names: readonly string[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const name of names) current = current === undefined ? undefined : child(current, name);
  return current === undefined ? undefined : unwrap(current);
}

/** The description of the deepest described field along `names`. */
function describeAt(schema: z.ZodType, names: readonly string[]): string | undefined {
  let current: z.ZodType | undefined = schema;
  let description = schema.description;
  for (const name of names) {
    current = current === undefined ? undefined : child(current, name);
    if (current === undefined) break;
    description = current.description ?? unwrap(current).description ?? description;
  }
  return description;
}

/**
 * The problems of one failed parse, one per invalid field and one per unknown key.
 *
 * @example
 * const r = schema.safeParse(options);
 * if (!r.success) optionProblems(check, r.error.issues); // [{ code: 'X_UNKNOWN_KEY', path: 'evn', … }]
 */
export function optionProblems<I extends TrustErrorCode, U extends TrustErrorCode>(
  check: OptionsCheck<I, U>,
  issues: readonly z.core.$ZodIssue[],
): Problem[] {
  return issues.flatMap((issue): Problem[] => {
    const names = issue.path.map(String);
    const path = names.join('.');
    if (issue.code === 'unrecognized_keys') {
      const inner = fieldAt(check.schema, names);
      const known = inner instanceof z.ZodObject ? Object.keys(inner.shape as object) : [];
      return issue.keys.map((key) => {
        const guess = suggest(key, known);
        return {
          code: check.unknownKeyCode,
          path: path === '' ? key : `${path}.${key}`,
          message: `unknown option ${JSON.stringify(key)}${path === '' ? '' : ` in ${path}`}`,
          hint: guess
            ? `did you mean "${guess}"? known options: ${known.join(', ')}`
            : `remove it; known options: ${known.join(', ')}`,
          severity: 'error',
        };
      });
    }
    const hint = check.hintFor?.(names) ?? describeAt(check.schema, names);
    return [
      {
        code: check.invalidCode,
        path,
        message: issue.message,
        ...(hint === undefined ? {} : { hint }),
        severity: 'error',
      },
    ];
  });
}

/**
 * Checks `options` against the strict schema of `check.where`, once, at the boundary. Throws
 * `check.invalidCode` listing every problem (an unknown key is a `check.unknownKeyCode` problem
 * with "did you mean"); returns the options unchanged, so injected objects (clocks, clients,
 * sinks) keep their identity.
 *
 * @example
 * checkOptions({ where: 'createProxy', schema, invalidCode: 'EGRESS_OPTIONS_INVALID',
 *   unknownKeyCode: 'EGRESS_OPTIONS_INVALID' }, options);
 */
export function checkOptions<T, I extends TrustErrorCode, U extends TrustErrorCode>(
  check: OptionsCheck<I, U>,
  options: T,
): T {
  const result = check.schema.safeParse(options);
  if (result.success) return options;
  const problems = optionProblems(check, result.error.issues);
  const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  const lines = problems.map((p) => `${p.path === '' ? '(options)' : p.path}: ${p.message}`).join('; ');
  throw new TrustError(check.invalidCode, `${check.where} options are invalid (${count}): ${lines}`, {
    problems,
    hint: problems[0]?.hint ?? `see the TSDoc of ${check.where}'s options`,
  });
}
