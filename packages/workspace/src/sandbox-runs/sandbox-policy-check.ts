import { TrustError } from '@trust/core';
import { didYouMean } from './did-you-mean.js';

/** The parts of a zod 4 schema this module reads: its definition and its description. */
interface SchemaLike {
  readonly _zod: {
    readonly def: {
      readonly type: string;
      readonly innerType?: SchemaLike;
      readonly shape?: Readonly<Record<string, SchemaLike>>;
    };
  };
  readonly description?: string;
}

interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
  readonly expected?: string;
}

interface SafeParser extends SchemaLike {
  safeParse(input: unknown): { success: true } | { success: false; error: { issues: readonly Issue[] } };
}

/** The schema at `path`, looking through defaults and optionals, and the first description met on the way to it. */
function schemaAt(
  schema: SchemaLike | undefined,
  path: readonly PropertyKey[],
): { schema: SchemaLike | undefined; description: string | undefined } {
  let description: string | undefined;
  const unwrap = (x: SchemaLike | undefined) => {
    description = x?.description;
    while (x?._zod.def.innerType && x._zod.def.type !== 'object') {
      x = x._zod.def.innerType;
      description ??= x.description;
    }
    return x;
  };
  let s = unwrap(schema);
  for (const key of path) s = unwrap(s?._zod.def.shape?.[String(key)]);
  return { schema: s, description };
}

const EXAMPLE = '{"v":1,"capabilities":["fs:rw:/srv/project","stdout"],"limits":{"timeMs":30000}}';

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

function valueAt(doc: unknown, path: readonly PropertyKey[]): unknown {
  let v = doc;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * Checks a sandbox policy against the sandbox's own schema and reports every problem at once in
 * the CLI's words: an unknown key is `SANDBOX_POLICY_UNKNOWN_KEY` with a did-you-mean from the
 * keys valid at that place; a wrong type names what was expected, what was given and what the
 * field means. Throws `SANDBOX_POLICY_INVALID` (exit 1: the file, not the command line, is wrong).
 */
export function checkSandboxPolicy(schema: SafeParser, doc: unknown, source: string): void {
  const r = schema.safeParse(doc);
  if (r.success) return;
  const problems: { code: string; path: string; message: string; hint: string }[] = [];
  for (const issue of r.error.issues) {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const valid = Object.keys(schemaAt(schema, issue.path).schema?._zod.def.shape ?? {});
      for (const key of issue.keys ?? []) {
        const s = didYouMean(key, valid);
        problems.push({
          code: 'SANDBOX_POLICY_UNKNOWN_KEY',
          path: at ? `${at}.${key}` : key,
          message: `unknown key "${key}"${at ? ` in ${at}` : ''}`,
          hint: s ? `did you mean "${s}"?` : `the keys here are: ${valid.join(', ')}`,
        });
      }
      continue;
    }
    const { description } = schemaAt(schema, issue.path);
    const meaning = description ? `: ${description}` : '';
    const message =
      issue.code === 'invalid_type' && issue.expected
        ? `must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}, ` +
          `got ${typeOf(valueAt(doc, issue.path))}`
        : issue.message.replace(/^Invalid input: /, '');
    problems.push({
      code: 'SANDBOX_POLICY_FIELD',
      path: at || '(top level)',
      message,
      hint: `${at || 'the policy'}${meaning}; a valid policy looks like ${EXAMPLE}`,
    });
  }
  const summary = problems
    .map((p) => `${p.path}: ${p.message}${p.code === 'SANDBOX_POLICY_UNKNOWN_KEY' ? ` (${p.hint})` : ''}`)
    .join('; ');
  throw Object.assign(
    new TrustError(
      'SANDBOX_POLICY_INVALID',
      `sandbox policy ${source} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${summary}`,
      { hint: `fix each problem below; a valid policy looks like ${EXAMPLE}` },
    ),
    { problems },
  );
}
