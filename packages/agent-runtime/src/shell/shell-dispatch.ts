import { TrustError, isDenied } from '@trust/core';
import type { Stmt } from './shell-ast.js';
import { EXIT_DENIED, EXIT_NOT_FOUND, EXIT_REJECTED } from './shell-types.js';
import type { CommandContext, ShellCommand, ShellGate } from './shell-types.js';
import {
  ExitSignal,
  ExpansionError,
  LoopSignal,
  ReturnSignal,
  TimeoutSignal,
  asSubshell,
  childScope,
} from './shell-state.js';
import type { ExpandScope, Io, RunState } from './shell-state.js';
import type { Interp } from './shell-interp.js';
import { normalizeToolArgs } from './shell-path.js';
import { UsageError, parseOptions } from './commands/options.js';

/** What the choke point needs from the shell's options (already defaulted). */
export interface DispatchConfig {
  readonly gate: ShellGate;
  readonly commands: ReadonlyMap<string, ShellCommand>;
  /** Commands per run. */
  readonly maxCommands: number;
  /** Nesting limit for eval, sh -c, source, functions and $(…). */
  readonly maxDepth: number;
  /** Deny codes that mean "a human rejected the approval" (exit 130). */
  readonly rejection: ReadonlySet<string>;
}

/** The choke point and the two helpers the rest of the interpreter shares with it. */
export type Dispatcher = Pick<Interp, 'dispatch' | 'preflight' | 'nested'>;

/**
 * Creates the shell's single choke point, `dispatch`: every command name with its argv, from
 * wherever it appears (pipelines, `$(…)`, xargs, `sh -c`, eval, sourced files, functions), is
 * preflighted here before it runs. `interp` returns the interpreter the dispatcher belongs to
 * (for `eval`, `source` and function bodies); it is read only at call time.
 */
export function createDispatcher(config: DispatchConfig, interp: () => Interp): Dispatcher {
  /**
   * THE choke point. Every command name with its argv arrives here, nowhere else. It resolves
   * the command's tools (plus those of its redirects), preflights each, and only then runs it,
   * with a context that can call the preflighted tools and nothing more.
   */
  async function dispatch(
    argv: readonly string[],
    extraTools: readonly string[],
    io: Io,
    scope: ExpandScope,
    st: RunState,
    prepare?: () => Promise<string>,
    skipFunctions = false,
  ): Promise<number> {
    if (st.signal?.aborted) throw new TrustError('SHELL_ABORTED', 'adf_shell: aborted');
    if (st.deadline !== undefined && Date.now() > st.deadline) throw new TimeoutSignal();
    st.commands += 1;
    if (st.commands > config.maxCommands)
      throw new TrustError('SHELL_LIMIT', `adf_shell: more than ${config.maxCommands} commands in one run`);
    const name = argv[0] ?? '';
    const fn = skipFunctions ? undefined : st.functions.get(name);
    const command = fn ? undefined : config.commands.get(name);
    if (!fn && !command) {
      st.trace.push({ command: name, tools: [], outcome: 'unknown' });
      io.err.write(`adf_shell: ${name}: command not found (this is a virtual shell; run \`help\` for its commands)\n`);
      return EXIT_NOT_FOUND;
    }
    if (command && argv[1] === '--help' && argv.length === 2) {
      io.out.write(`${name}: ${command.summary}\n`);
      return 0;
    }
    let own: readonly string[] = [];
    try {
      if (command?.options) parseOptions(name, command.options, argv.slice(1));
      own = command ? command.tools(argv.slice(1)) : [];
    } catch (e) {
      // a command line its command cannot read (a bad option): refused before anything runs
      st.trace.push({ command: name, tools: [], outcome: 'ran' });
      io.err.write(`${e instanceof UsageError ? '' : `${name}: `}${(e as Error)?.message ?? String(e)}\n`);
      return e instanceof UsageError ? e.status : 2;
    }
    const tools = [...new Set([...own, ...extraTools])];
    const allowed = await preflight(name, tools, io, st);
    if (allowed !== 0) return allowed;
    if (prepare) {
      try {
        io = { ...io, stdin: await prepare(), cursor: { pos: 0 } };
      } catch (e) {
        io.err.write(`adf_shell: ${name}: ${(e as Error)?.message ?? String(e)}\n`);
        return e instanceof TrustError && config.rejection.has(e.code) ? refuse(st, EXIT_REJECTED) : 1;
      }
    }
    if (fn) return callFunction(fn, argv.slice(1), io, scope, st);
    let rejected: TrustError | undefined;
    const ctx: CommandContext = {
      stdin: io.cursor.pos > 0 ? io.stdin.slice(io.cursor.pos) : io.stdin,
      env: () => [...scope.vars],
      has: (n) => config.commands.has(n) || st.functions.has(n),
      out: io.out,
      err: io.err,
      tool: async (tool, args) => {
        if (!tools.includes(tool))
          throw new TrustError('SHELL_UNDECLARED_TOOL', `adf_shell: ${name} used ${tool}, which it did not declare`);
        try {
          return await config.gate.call(tool, normalizeToolArgs(args));
        } catch (e) {
          // A human's rejection at call time (the gate's own approval) ends the command with 130,
          // even if the command itself would have caught the error.
          if (e instanceof TrustError && config.rejection.has(e.code)) rejected = e;
          throw e;
        }
      },
      script: async (source, o) => {
        if (!o.child) return nested(st, () => interp().runSource(source, io, scope, st));
        const child = childScope(scope);
        child.positional = [...(o.args ?? [])];
        return nested(st, () =>
          asSubshell(io.err, async () => {
            try {
              return await interp().runSource(source, io, child, st);
            } catch (e) {
              if (e instanceof ExpansionError) {
                io.err.write(`adf_shell: ${e.message}\n`);
                return 127;
              }
              throw e;
            }
          }),
        );
      },
      command: async (inner, o = {}) => {
        const env = Object.entries(o.env ?? {});
        const cmdScope =
          env.length > 0 || o.clearEnv
            ? { ...scope, vars: new Map([...(o.clearEnv ? [] : scope.vars), ...env]) }
            : scope;
        const skip = o.skipFunctions === true;
        if (o.timeoutMs === undefined) return dispatch(inner, [], io, cmdScope, st, undefined, skip);
        const saved = st.deadline;
        const deadline = Date.now() + o.timeoutMs;
        st.deadline = saved === undefined ? deadline : Math.min(saved, deadline);
        try {
          return await dispatch(inner, [], io, cmdScope, st, undefined, skip);
        } catch (e) {
          if (e instanceof TimeoutSignal && (saved === undefined || Date.now() <= saved)) return 124;
          throw e;
        } finally {
          st.deadline = saved;
        }
      },
    };
    try {
      const status = await command!.run(ctx, argv.slice(1));
      if (rejected) {
        st.trace.push({ command: name, tools, outcome: 'rejected' });
        return refuse(st, EXIT_REJECTED);
      }
      return status;
    } catch (e) {
      if (rejected) {
        st.trace.push({ command: name, tools, outcome: 'rejected' });
        io.err.write(`${name}: ${rejected.message}\n`);
        return refuse(st, EXIT_REJECTED);
      }
      if (
        e instanceof ExitSignal ||
        e instanceof ReturnSignal ||
        e instanceof LoopSignal ||
        e instanceof TimeoutSignal ||
        e instanceof ExpansionError
      )
        throw e;
      if (e instanceof TrustError && (e.code === 'SHELL_LIMIT' || e.code === 'SHELL_ABORTED')) throw e;
      if (e instanceof UsageError) {
        io.err.write(`${e.message}\n`);
        return e.status;
      }
      io.err.write(`${name}: ${(e as Error)?.message ?? String(e)}\n`);
      return e instanceof TrustError && config.rejection.has(e.code) ? EXIT_REJECTED : 1;
    }
  }

  async function preflight(name: string, tools: readonly string[], io: Io, st: RunState): Promise<number> {
    for (const tool of tools) {
      const d = await config.gate.preflight(tool);
      if (isDenied(d)) {
        const rejected = config.rejection.has(d.code);
        st.trace.push({ command: name, tools, outcome: rejected ? 'rejected' : 'disabled' });
        io.err.write(`adf_shell: ${name}: ${tool} ${rejected ? 'was not approved' : 'is not allowed'}: ${d.reason}\n`);
        return refuse(st, rejected ? EXIT_REJECTED : EXIT_DENIED);
      }
    }
    st.trace.push({ command: name, tools, outcome: 'ran' });
    return 0;
  }

  /** Counts a refusal by the gate so enclosing constructs can see it (fail closed). */
  function refuse(st: RunState, status: number): number {
    st.refusals += 1;
    st.lastRefusal = status;
    return status;
  }

  async function nested<T>(st: RunState, f: () => Promise<T>): Promise<T> {
    if (st.depth >= config.maxDepth)
      throw new TrustError('SHELL_LIMIT', `adf_shell: nesting deeper than ${config.maxDepth}`);
    st.depth += 1;
    try {
      return await f();
    } finally {
      st.depth -= 1;
    }
  }

  async function callFunction(
    body: Stmt,
    args: readonly string[],
    io: Io,
    scope: ExpandScope,
    st: RunState,
  ): Promise<number> {
    const saved = scope.positional;
    scope.positional = [...args];
    const frame: RunState['locals'][number] = new Map();
    st.locals.push(frame);
    try {
      return await nested(st, () => interp().execStmt(body, io, scope, st));
    } catch (e) {
      if (e instanceof ReturnSignal) return e.status;
      throw e;
    } finally {
      scope.positional = saved;
      st.locals.pop();
      for (const [k, v] of frame) {
        scope.vars.delete(k);
        scope.arrays.delete(k);
        if (v.array) scope.arrays.set(k, v.array);
        else if (v.value !== undefined) scope.vars.set(k, v.value);
      }
    }
  }

  return { dispatch, preflight, nested };
}
