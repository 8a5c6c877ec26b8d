import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CommandSpec, OptionSpec, OptionValues } from './command.js';
import { usageError } from './cli-error.js';
import { didYouMean, didYouMeanFlag } from './did-you-mean.js';

/** Flags every command accepts. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = Object.freeze({
  json: { type: 'boolean', description: 'print one JSON document on stdout (see "JSON output")' },
  'no-color': { type: 'boolean', description: 'never colour output (NO_COLOR=1 does the same)' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
});

/** The result of parsing one command's arguments. */
export interface ParsedArgs {
  readonly values: OptionValues;
  readonly positionals: readonly string[];
  readonly rest: readonly string[];
  readonly help: boolean;
  readonly json: boolean;
  readonly color: boolean | undefined;
}

function flagNames(options: Readonly<Record<string, OptionSpec>>): string[] {
  const names: string[] = [];
  for (const [name, spec] of Object.entries(options)) {
    names.push(`--${name}`);
    if (spec.short) names.push(`-${spec.short}`);
  }
  return names;
}

/** A word that is a negative number (an integer or a decimal, with an optional exponent). */
const NEGATIVE_NUMBER = /^-\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** `parseArgs` in strict mode with tokens; its errors become usage errors. */
function parseStrictly(spec: CommandSpec, argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw toUsageError(spec, error);
  }
}

/**
 * Parses `argv` (the words after the command name) against a command's options, strictly: an
 * unknown flag, a flag without its value or a value given to a boolean flag is a usage error
 * (`CLI_USAGE_*`, exit 2) with a did-you-mean hint. Missing or extra positionals are usage errors
 * too, unless `--help` was asked for.
 *
 * @example
 * parseCommandArgs(spec, ['https://example.com', '--mode', 'strict']);
 */
export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const all = { ...spec.options, ...GLOBAL_OPTIONS };
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of Object.entries(all)) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  // A negative number (`trust run calc add 2 -1`) is a value, never a cluster of short flags: it
  // is hidden from the parser behind a key that no argument can spell, and put back afterwards.
  const negatives = new Map<string, string>();
  const words = argv.map((w, i) => {
    if (!NEGATIVE_NUMBER.test(w)) return w;
    const key = `\u0000${i}`;
    negatives.set(key, w);
    return key;
  });
  const back = (w: string): string => negatives.get(w) ?? w;
  const parsed = parseStrictly(spec, words, options);
  const terminator = parsed.tokens.find((t) => t.kind === 'option-terminator');
  const positionals: string[] = [];
  const rest: string[] = [];
  for (const t of parsed.tokens) {
    if (t.kind !== 'positional') continue;
    if (terminator && t.index > terminator.index) rest.push(back(t.value));
    else positionals.push(back(t.value));
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  for (const [k, v] of Object.entries(values)) {
    if (typeof v === 'string') values[k] = back(v);
    else if (Array.isArray(v)) values[k] = v.map(back);
  }
  const help = values.help === true;
  if (!help) {
    if (!spec.passthrough && rest.length > 0) {
      // Without passthrough, `--` only lets a positional start with a dash.
      positionals.push(...rest.splice(0));
    }
    checkPositionals(spec, positionals);
    if (spec.passthrough && rest.length === 0) {
      throw usageError(
        'CLI_USAGE_MISSING_ARGUMENT',
        `trust ${spec.name} needs the command to run after --`,
        `for example: ${spec.examples[0]?.command ?? `trust ${spec.name} -- echo hi`}`,
      );
    }
  }
  return {
    values,
    positionals,
    rest,
    help,
    json: values.json === true,
    color: values['no-color'] === true ? false : undefined,
  };
}

function checkPositionals(spec: CommandSpec, positionals: readonly string[]): void {
  const required = spec.positionals.filter((p) => p.required !== false);
  const variadic = spec.positionals.some((p) => p.variadic);
  if (positionals.length < required.length) {
    const missing = required[positionals.length];
    throw usageError(
      'CLI_USAGE_MISSING_ARGUMENT',
      `trust ${spec.name} needs <${missing?.name ?? 'argument'}>`,
      `for example: ${spec.examples[0]?.command ?? `trust ${spec.name} --help`}`,
    );
  }
  if (!variadic && positionals.length > spec.positionals.length) {
    const extra = positionals[spec.positionals.length] ?? '';
    throw usageError(
      'CLI_USAGE_UNEXPECTED_ARGUMENT',
      `trust ${spec.name} does not take the argument '${extra}'`,
      `see \`trust ${spec.name} --help\``,
    );
  }
}

function toUsageError(spec: CommandSpec, error: unknown): Error {
  const e = error as { code?: string; message?: string };
  const message = String(e.message ?? error);
  const flag = /'(-[^' ]*)/.exec(message)?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
    const bare = flag.split('=')[0] as string;
    const suggestion = didYouMeanFlag(bare, flagNames({ ...spec.options, ...GLOBAL_OPTIONS }));
    return usageError(
      'CLI_USAGE_UNKNOWN_OPTION',
      `unknown option '${bare}' for trust ${spec.name}`,
      suggestion ? `did you mean '${suggestion}'?` : `see \`trust ${spec.name} --help\` for the options`,
    );
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return usageError(
      'CLI_USAGE_INVALID_VALUE',
      `${message.split('.')[0]} (trust ${spec.name})`,
      `see \`trust ${spec.name} --help\``,
    );
  }
  return usageError('CLI_USAGE', message, `see \`trust ${spec.name} --help\``);
}

/** A string flag's value, or `undefined`. */
export function stringOption(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable flag's values (`[]` when absent). */
export function listOption(values: OptionValues, name: string): readonly string[] {
  const v = values[name];
  if (Array.isArray(v)) return v as readonly string[];
  return typeof v === 'string' ? [v] : [];
}

/**
 * An integer flag within bounds, or `undefined` when absent; anything else is a usage error whose
 * hint shows `example` (default: 8080 for a port range, else the smallest allowed value above 0).
 *
 * @example
 * integerOption(values, 'port', { min: 0, max: 65535 });
 */
export function integerOption(
  values: OptionValues,
  name: string,
  range: { min: number; max: number; example?: number },
): number | undefined {
  const v = stringOption(values, name);
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw usageError(
      'CLI_USAGE_INVALID_VALUE',
      `--${name} must be a whole number from ${range.min} to ${range.max}, got '${v}'`,
      `for example --${name} ${range.example ?? (range.max === 65_535 ? 8080 : Math.max(range.min, 1))}`,
    );
  }
  return n;
}

/** A flag restricted to a set of words, or `undefined` when absent. */
export function choiceOption<T extends string>(
  values: OptionValues,
  name: string,
  choices: readonly T[],
): T | undefined {
  const v = stringOption(values, name);
  if (v === undefined) return undefined;
  if ((choices as readonly string[]).includes(v)) return v as T;
  const s = didYouMean(v, choices);
  throw usageError(
    'CLI_USAGE_INVALID_VALUE',
    `--${name} must be one of ${choices.join(', ')}, got '${v}'`,
    s ? `did you mean '${s}'?` : `for example --${name} ${choices[0]}`,
  );
}
