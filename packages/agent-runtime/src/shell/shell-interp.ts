import type { Command, Stmt } from './shell-ast.js';
import type { GlobRunner, SubstRunner } from './shell-expand.js';
import type { ShellSyntax } from './shell-syntax.js';
import type { BufferSink, ExpandScope, Io, RunState } from './shell-state.js';
import type { ShellSink } from './shell-types.js';

/**
 * What the parts of the interpreter (statements, compound commands, builtins, `[[ ]]`) share:
 * one object per shell, built by `createShell`. `dispatch` is the single choke point; nothing
 * here runs a tool any other way, except redirects and `[[ -f ]]`, which call `call` only after
 * `preflight` allowed their tools.
 */
export interface Interp {
  readonly syntax: ShellSyntax;
  readonly maxLoop: number;
  readonly nullSink: ShellSink;
  bufferSink(): BufferSink;
  /** True for an error meaning "a human rejected the approval" (exit 130). */
  isRejection(e: unknown): boolean;
  /** Runs one command by argv through the choke point. */
  dispatch(
    argv: readonly string[],
    extraTools: readonly string[],
    io: Io,
    scope: ExpandScope,
    st: RunState,
    prepare?: () => Promise<string>,
  ): Promise<number>;
  /** Preflights tools for a command that is not dispatched (redirects of compound commands, `[[ ]]`). */
  preflight(name: string, tools: readonly string[], io: Io, st: RunState): Promise<number>;
  /** Calls a tool that `preflight` allowed. */
  call(tool: string, args: Record<string, unknown>): Promise<unknown>;
  execStmt(stmt: Stmt, io: Io, scope: ExpandScope, st: RunState): Promise<number>;
  execStmts(stmts: readonly Stmt[], io: Io, scope: ExpandScope, st: RunState): Promise<number>;
  execCompound(cmd: Command, io: Io, scope: ExpandScope, st: RunState): Promise<number>;
  /** A runner for `$( … )` in this scope: a subshell whose status lands in `scope.substStatus`. */
  subst(io: Io, scope: ExpandScope, st: RunState): SubstRunner;
  /**
   * Pathname expansion through fs_list (preflighted; a refused listing leaves the word as written, as an unreadable
   * directory does in bash).
   */
  glob(st: RunState): GlobRunner;
  nested<T>(st: RunState, f: () => Promise<T>): Promise<T>;
  runSource(source: string, io: Io, scope: ExpandScope, st: RunState): Promise<number>;
}
