import type { CliIo } from './io.js';
import type { Output } from './output.js';

/** One flag of a command. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The flag may repeat (`--cap a --cap b`); its value is then a list. */
  readonly multiple?: boolean;
  /** The placeholder shown in help, e.g. `file` for `--policy <file>`. */
  readonly valueName?: string;
  readonly description: string;
}

/** One positional argument. */
export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  /** Defaults to true. */
  readonly required?: boolean;
  /** Takes every remaining positional (must be last). */
  readonly variadic?: boolean;
}

/** One help example: a command line and what it does. */
export interface Example {
  readonly command: string;
  readonly explain: string;
}

/** Parsed flag values, by long name. */
export type OptionValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/** What a command's `run` receives. */
export interface CommandContext {
  readonly io: CliIo;
  readonly out: Output;
  readonly values: OptionValues;
  readonly positionals: readonly string[];
  /** Arguments after `--` (only for commands with `passthrough`). */
  readonly rest: readonly string[];
}

/**
 * A command: its help (summary, usage, arguments, options, examples, JSON shape, exit codes) and
 * its `run`. A command module exports one as `command` and imports heavy packages only inside
 * `run`, so that loading it for `--help` stays cheap.
 */
export interface CommandSpec {
  /** The words after `trust`, e.g. `egress check`. */
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly positionals: readonly PositionalSpec[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Accepts `-- argv…`, passed as `rest`. */
  readonly passthrough?: { readonly name: string; readonly description: string };
  readonly examples: readonly Example[];
  /** The shape of the `--json` result, shown in help. */
  readonly jsonShape: string;
  /** Exit codes this command uses beyond 0/1/2, e.g. `126 the URL is denied`. */
  readonly exitCodes?: readonly string[];
  /** Returns the exit code; `undefined` means 0. */
  run(ctx: CommandContext): Promise<number | undefined>;
}

/** What a command module exports. */
export interface CommandModule {
  readonly command: CommandSpec;
}
