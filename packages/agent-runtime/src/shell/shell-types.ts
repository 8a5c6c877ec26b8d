import type { Decision } from '@trust/core';
import type { OptionTable } from './commands/options.js';

/**
 * The gate as the shell sees it. `preflight` is asked once per tool before a command runs
 * (it may ask a human); `call` runs a tool the command declared and preflight allowed.
 */
export interface ShellGate {
  preflight(tool: string): Promise<Decision>;
  call(tool: string, args: Record<string, unknown>): Promise<unknown>;
}

/** Where a command writes. */
export interface ShellSink {
  write(text: string): void;
}

/** What a command receives at run time. */
export interface CommandContext {
  readonly stdin: string;
  readonly out: ShellSink;
  readonly err: ShellSink;
  /** Runs one of the tools this invocation declared (anything else throws SHELL_UNDECLARED_TOOL). */
  tool(name: string, args: Record<string, unknown>): Promise<unknown>;
  /** Runs shell source in the current shell (eval, source) or a child shell (sh -c). */
  script(source: string, options: { readonly child: boolean; readonly args?: readonly string[] }): Promise<number>;
  /**
   * Runs one command by argv through the same choke point as any other (xargs, env, timeout,
   * exec, command, nohup). `env` adds variables for it; `timeoutMs` ends it (124) at its next
   * command once the time has passed.
   */
  command(
    argv: readonly string[],
    options?: {
      readonly env?: Readonly<Record<string, string>>;
      readonly clearEnv?: boolean;
      readonly timeoutMs?: number;
      readonly skipFunctions?: boolean;
    },
  ): Promise<number>;
  /** The shell's variables (for `env`). */
  env(): ReadonlyArray<readonly [string, string]>;
  /** Whether a command or function of this name exists (for `command -v`). */
  has(name: string): boolean;
}

/** One command of the virtual shell. */
export interface ShellCommand {
  readonly name: string;
  readonly summary: string;
  /**
   * The tools this invocation resolves to, from its argv alone (before anything runs). The
   * choke point preflights each; the command can use no other.
   */
  tools(argv: readonly string[]): readonly string[];
  /**
   * The commands (argv) and scripts this invocation runs through the choke point, as far as its
   * argv tells (`find -exec`, `xargs`, `env`, `sh -c`, `eval`): the whole-script check looks into
   * them before anything runs. A word known only at run time is {@link DYNAMIC_WORD}.
   */
  nested?(argv: readonly string[]): {
    readonly commands?: ReadonlyArray<readonly string[]>;
    readonly scripts?: readonly string[];
  };
  /**
   * The options it implements. The choke point reads argv by this table first and refuses any
   * other option with exit 2, naming it; `undefined` means the command reads its argv itself
   * (a program, a command to run, or bash's own rules, as for echo and test).
   */
  readonly options?: OptionTable;
  run(ctx: CommandContext, argv: readonly string[]): Promise<number>;
}

/** Result of one shell run. */
export interface ShellResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Every command that passed the choke point, in order, with the tools it resolved to. */
  readonly trace: readonly ShellTraceEntry[];
}

/** One command seen by the choke point. */
export interface ShellTraceEntry {
  readonly command: string;
  readonly tools: readonly string[];
  readonly outcome: 'ran' | 'disabled' | 'rejected' | 'unknown';
}

/** Exit status of a command whose tool is disabled or otherwise denied. */
export const EXIT_DENIED = 126;
/** Exit status of an unknown command. */
export const EXIT_NOT_FOUND = 127;
/** Exit status of a command whose approval a human rejected. */
export const EXIT_REJECTED = 130;

/** Stands for a word the whole-script check cannot know before the run (`$x`, `*.txt`, `$(…)`). */
export const DYNAMIC_WORD = '\u0000';
