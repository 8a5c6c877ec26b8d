import type { FuncDecl, Stmt } from './shell-ast.js';
import type { ShellSink, ShellTraceEntry } from './shell-types.js';

/** `set` options the interpreter honours. */
export interface ShellOpts {
  /** `set -e`: exit when a command fails outside a condition. */
  errexit: boolean;
  /** `set -u`: expanding an unset variable is an error. */
  nounset: boolean;
  /** `set -o pipefail`: a pipeline's status is its last failing stage's. */
  pipefail: boolean;
}

/** Variables, arrays, positional parameters and options: one shell (subshells copy it). */
export interface ExpandScope {
  vars: Map<string, string>;
  /** Indexed arrays; a scalar name and an array name never coexist. */
  arrays: Map<string, string[]>;
  positional: string[];
  lastStatus: number;
  opts: ShellOpts;
  /**
   * Status of the last command substitution since the statement began (bash: an assignment-only statement's status).
   */
  substStatus?: number;
  /** Set when a command substitution since the statement began was refused by the gate (126/130). */
  substRefused?: number;
}

/** A copy for a subshell: `( … )`, `$( … )`, each pipeline stage. */
export function childScope(scope: ExpandScope, opts: Partial<ShellOpts> = {}): ExpandScope {
  const arrays = new Map<string, string[]>();
  for (const [k, v] of scope.arrays) arrays.set(k, [...v]);
  return {
    vars: new Map(scope.vars),
    arrays,
    positional: [...scope.positional],
    lastStatus: scope.lastStatus,
    opts: { ...scope.opts, ...opts },
  };
}

/** A fresh top-level scope. */
export function createScope(env: Readonly<Record<string, string>>): ExpandScope {
  return {
    vars: new Map(Object.entries(env)),
    arrays: new Map(),
    positional: [],
    lastStatus: 0,
    opts: { errexit: false, nounset: false, pipefail: false },
  };
}

/**
 * Standard streams of one command. `cursor` is how far `read` has consumed `stdin`; it is shared
 * by every command reading the same input (a `while read` loop), and new input gets a new one.
 */
export interface Io {
  readonly stdin: string;
  readonly cursor: { pos: number };
  readonly out: ShellSink;
  readonly err: ShellSink;
}

/** Io with new input. */
export const withInput = (io: Io, stdin: string): Io => ({ stdin, cursor: { pos: 0 }, out: io.out, err: io.err });

/** A sink that keeps what is written (capped). */
export interface BufferSink extends ShellSink {
  text(): string;
}

/** State of one run, shared by everything it runs. */
export interface RunState {
  commands: number;
  depth: number;
  /** >0 while running a condition (if/while test, left of && ||, negated): `set -e` is ignored. */
  condDepth: number;
  /** Commands the gate refused so far (a construct compares before and after). */
  refusals: number;
  /** Status (126 or 130) of the last refusal. */
  lastRefusal: number;
  trace: ShellTraceEntry[];
  functions: Map<string, FuncDecl['Body']>;
  /** One frame per running function: the values `local` shadowed, restored on return. */
  locals: Array<Map<string, { value: string | undefined; array: string[] | undefined }>>;
  signal?: AbortSignal;
  /** `timeout`: epoch ms after which the next command ends the run with 124. */
  deadline?: number;
}

/** Thrown by `exit` (and by a fatal expansion error): ends the shell or subshell. */
export class ExitSignal {
  constructor(readonly status: number) {}
}
/** Thrown at the next command once a `timeout` deadline has passed. */
export class TimeoutSignal {}
/** Thrown by `return`. */
export class ReturnSignal {
  constructor(readonly status: number) {}
}
/** Thrown by `break` / `continue`. */
export class LoopSignal {
  constructor(
    readonly kind: 'break' | 'continue',
    public levels: number,
  ) {}
}

/** A fatal expansion error (`set -u`, `${x:?msg}`): ends the shell (127) or the subshell (1), as in bash. */
export class ExpansionError extends Error {}

/** Runs a subshell body: `exit` (or a fatal expansion error) ends only the subshell. */
export async function asSubshell(err: ShellSink, f: () => Promise<number>): Promise<number> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ExitSignal) return e.status;
    if (e instanceof ExpansionError) {
      err.write(`adf_shell: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

export type { Stmt };
