import { TrustError, isDenied } from '@trust/core';
import type { Stmt } from './shell-ast.js';
import { createShellSyntax } from './shell-syntax.js';
import type { ShellSyntax } from './shell-syntax.js';
import { EXIT_DENIED, EXIT_NOT_FOUND, EXIT_REJECTED } from './shell-types.js';
import type { CommandContext, ShellCommand, ShellGate, ShellResult, ShellSink } from './shell-types.js';
import { createDefaultCommands } from './commands/index.js';
import { ExitSignal, ExpansionError, LoopSignal, ReturnSignal, TimeoutSignal, asSubshell, childScope, createScope } from './shell-state.js';
import type { BufferSink, ExpandScope, Io, RunState } from './shell-state.js';
import type { Interp } from './shell-interp.js';
import { execStmt, execStmts } from './shell-exec.js';
import { execCompound } from './shell-compound.js';
import { normalizeToolArgs } from './shell-path.js';
import { literalPrefix, matchGlob } from './shell-glob.js';
import { listedFiles } from './commands/files.js';

/** Options of {@link createShell}. */
export interface ShellOptions {
  readonly gate: ShellGate;
  /** Commands by name; default {@link createDefaultCommands}. */
  readonly commands?: ReadonlyMap<string, ShellCommand>;
  /** Nesting limit for eval, sh -c, source, functions and $(…) (default 32). */
  readonly maxDepth?: number;
  /** Commands per run (default 10000). */
  readonly maxCommands?: number;
  /** Iterations of one loop (default 10000). */
  readonly maxLoopIterations?: number;
  /** Bytes kept of stdout and of stderr (default 1 MiB each). */
  readonly maxOutputBytes?: number;
  /** Deny codes that mean "a human rejected the approval" (exit 130); others give 126. */
  readonly rejectionCodes?: readonly string[];
}

/** A virtual shell over the agent's tools. */
export interface Shell {
  run(source: string, options?: { readonly stdin?: string; readonly env?: Readonly<Record<string, string>>; readonly signal?: AbortSignal }): Promise<ShellResult>;
  /** The tools each command resolves to (for docs and the `adf_shell` tool description). */
  describe(): ReadonlyArray<{ readonly name: string; readonly summary: string }>;
}

/** Default deny codes treated as a human's rejection. */
export const DEFAULT_REJECTION_CODES: readonly string[] = Object.freeze(['APPROVAL_REJECTED', 'APPROVAL_DENIED', 'TOOL_APPROVAL_REJECTED', 'TOOL_REJECTED', 'HIL_REJECTED']);

/**
 * Creates the virtual shell `adf_shell`. Scripts are parsed into an AST and interpreted here;
 * no host shell and no host process is ever involved. Every command, wherever it appears
 * (pipelines, `$(…)`, backticks, xargs, `sh -c`, eval, sourced files, functions, here-docs),
 * passes through one function, `dispatch`, which preflights the tools it resolves to before it
 * runs: a disabled tool gives exit 126, a rejected approval exit 130, an unknown command 127.
 *
 * @example
 * ```ts
 * const shell = createShell({ gate });
 * const r = await shell.run('cat notes.md | grep TODO > todo.txt');
 * ```
 */
export function createShell(options: ShellOptions): Shell {
  const syntax = createShellSyntax();
  const commands = options.commands ?? createDefaultCommands();
  const maxDepth = options.maxDepth ?? 32;
  const maxCommands = options.maxCommands ?? 10_000;
  const maxLoop = options.maxLoopIterations ?? 10_000;
  const maxOut = options.maxOutputBytes ?? 1024 * 1024;
  const rejection = new Set(options.rejectionCodes ?? DEFAULT_REJECTION_CODES);
  const gate = options.gate;

  const bufferSink = (): BufferSink => {
    let s = '';
    let truncated = false;
    return {
      write(t) { if (s.length + t.length > maxOut) { if (!truncated) { s += t.slice(0, Math.max(0, maxOut - s.length)); truncated = true; } } else s += t; },
      text: () => (truncated ? `${s}\n[output truncated at ${maxOut} bytes]` : s),
    };
  };
  const nullSink: ShellSink = { write() {} };

  /**
   * THE choke point. Every command name with its argv arrives here, nowhere else. It resolves
   * the command's tools (plus those of its redirects), preflights each, and only then runs it,
   * with a context that can call the preflighted tools and nothing more.
   */
  async function dispatch(argv: readonly string[], extraTools: readonly string[], io: Io, scope: ExpandScope, st: RunState, prepare?: () => Promise<string>, skipFunctions = false): Promise<number> {
    if (st.signal?.aborted) throw new TrustError('SHELL_ABORTED', 'adf_shell: aborted');
    if (st.deadline !== undefined && Date.now() > st.deadline) throw new TimeoutSignal();
    st.commands += 1;
    if (st.commands > maxCommands) throw new TrustError('SHELL_LIMIT', `adf_shell: more than ${maxCommands} commands in one run`);
    const name = argv[0] ?? '';
    const fn = skipFunctions ? undefined : st.functions.get(name);
    const command = fn ? undefined : commands.get(name);
    if (!fn && !command) {
      st.trace.push({ command: name, tools: [], outcome: 'unknown' });
      io.err.write(`adf_shell: ${name}: command not found (this is a virtual shell; run \`help\` for its commands)\n`);
      return EXIT_NOT_FOUND;
    }
    if (command && argv[1] === '--help' && argv.length === 2) { io.out.write(`${name}: ${command.summary}\n`); return 0; }
    const tools = [...new Set([...(command ? command.tools(argv.slice(1)) : []), ...extraTools])];
    const allowed = await preflight(name, tools, io, st);
    if (allowed !== 0) return allowed;
    if (prepare) {
      try { io = { ...io, stdin: await prepare(), cursor: { pos: 0 } }; } catch (e) {
        io.err.write(`adf_shell: ${name}: ${(e as Error)?.message ?? String(e)}\n`);
        return e instanceof TrustError && rejection.has(e.code) ? refuse(st, EXIT_REJECTED) : 1;
      }
    }
    if (fn) return callFunction(fn, argv.slice(1), io, scope, st);
    let rejected: TrustError | undefined;
    const ctx: CommandContext = {
      stdin: io.cursor.pos > 0 ? io.stdin.slice(io.cursor.pos) : io.stdin,
      env: () => [...scope.vars],
      has: (n) => commands.has(n) || st.functions.has(n),
      out: io.out,
      err: io.err,
      tool: async (tool, args) => {
        if (!tools.includes(tool)) throw new TrustError('SHELL_UNDECLARED_TOOL', `adf_shell: ${name} used ${tool}, which it did not declare`);
        try {
          return await gate.call(tool, normalizeToolArgs(args));
        } catch (e) {
          // A human's rejection at call time (the gate's own approval) ends the command with 130,
          // even if the command itself would have caught the error.
          if (e instanceof TrustError && rejection.has(e.code)) rejected = e;
          throw e;
        }
      },
      script: async (source, o) => {
        if (!o.child) return nested(st, () => ip.runSource(source, io, scope, st));
        const child = childScope(scope);
        child.positional = [...(o.args ?? [])];
        return nested(st, () => asSubshell(io.err, async () => {
          try { return await ip.runSource(source, io, child, st); } catch (e) {
            if (e instanceof ExpansionError) { io.err.write(`adf_shell: ${e.message}\n`); return 127; }
            throw e;
          }
        }));
      },
      command: async (inner, o = {}) => {
        const env = Object.entries(o.env ?? {});
        const cmdScope = env.length > 0 || o.clearEnv ? { ...scope, vars: new Map([...(o.clearEnv ? [] : scope.vars), ...env]) } : scope;
        const skip = o.skipFunctions === true;
        if (o.timeoutMs === undefined) return dispatch(inner, [], io, cmdScope, st, undefined, skip);
        const saved = st.deadline;
        const deadline = Date.now() + o.timeoutMs;
        st.deadline = saved === undefined ? deadline : Math.min(saved, deadline);
        try { return await dispatch(inner, [], io, cmdScope, st, undefined, skip); } catch (e) {
          if (e instanceof TimeoutSignal && (saved === undefined || Date.now() <= saved)) return 124;
          throw e;
        } finally { st.deadline = saved; }
      },
    };
    try {
      const status = await command!.run(ctx, argv.slice(1));
      if (rejected) { st.trace.push({ command: name, tools, outcome: 'rejected' }); return refuse(st, EXIT_REJECTED); }
      return status;
    } catch (e) {
      if (rejected) { st.trace.push({ command: name, tools, outcome: 'rejected' }); io.err.write(`${name}: ${rejected.message}\n`); return refuse(st, EXIT_REJECTED); }
      if (e instanceof ExitSignal || e instanceof ReturnSignal || e instanceof LoopSignal || e instanceof TimeoutSignal || e instanceof ExpansionError) throw e;
      if (e instanceof TrustError && (e.code === 'SHELL_LIMIT' || e.code === 'SHELL_ABORTED')) throw e;
      io.err.write(`${name}: ${(e as Error)?.message ?? String(e)}\n`);
      return e instanceof TrustError && rejection.has(e.code) ? EXIT_REJECTED : 1;
    }
  }

  async function preflight(name: string, tools: readonly string[], io: Io, st: RunState): Promise<number> {
    for (const tool of tools) {
      const d = await gate.preflight(tool);
      if (isDenied(d)) {
        const rejected = rejection.has(d.code);
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
    if (st.depth >= maxDepth) throw new TrustError('SHELL_LIMIT', `adf_shell: nesting deeper than ${maxDepth}`);
    st.depth += 1;
    try { return await f(); } finally { st.depth -= 1; }
  }

  async function callFunction(body: Stmt, args: readonly string[], io: Io, scope: ExpandScope, st: RunState): Promise<number> {
    const saved = scope.positional;
    scope.positional = [...args];
    const frame: RunState['locals'][number] = new Map();
    st.locals.push(frame);
    try {
      return await nested(st, () => ip.execStmt(body, io, scope, st));
    } catch (e) {
      if (e instanceof ReturnSignal) return e.status;
      throw e;
    } finally {
      scope.positional = saved;
      st.locals.pop();
      for (const [k, v] of frame) {
        scope.vars.delete(k); scope.arrays.delete(k);
        if (v.array) scope.arrays.set(k, v.array); else if (v.value !== undefined) scope.vars.set(k, v.value);
      }
    }
  }

  const ip: Interp = {
    syntax, maxLoop, nullSink, bufferSink,
    isRejection: (e) => e instanceof TrustError && rejection.has(e.code),
    dispatch, preflight,
    call: (tool, args) => gate.call(tool, normalizeToolArgs(args)),
    execStmt: (stmt, io, scope, st) => execStmt(ip, stmt, io, scope, st),
    execStmts: (stmts, io, scope, st) => execStmts(ip, stmts, io, scope, st),
    execCompound: (cmd, io, scope, st) => execCompound(ip, cmd, io, scope, st),
    subst: (io, scope, st) => async (stmts) => {
      const out = bufferSink();
      const before = st.refusals;
      // bash (not in POSIX mode) clears errexit inside $( … ); the status still reaches the caller
      const child = childScope(scope, { errexit: false });
      let status = await nested(st, () => asSubshell(io.err, () => execStmts(ip, stmts, { stdin: '', cursor: { pos: 0 }, out, err: io.err }, child, st)));
      if (st.refusals > before) { status = st.lastRefusal; scope.substRefused = status; }
      scope.substStatus = status;
      return out.text();
    },
    glob: (st) => async (pattern) => {
      const d = await gate.preflight('fs_list');
      st.trace.push({ command: '(glob)', tools: ['fs_list'], outcome: isDenied(d) ? (rejection.has(d.code) ? 'rejected' : 'disabled') : 'ran' });
      if (isDenied(d)) return undefined;
      const prefix = literalPrefix(pattern.replace(/^(\.\/)+/, ''));
      try {
        return matchGlob(pattern, listedFiles(await gate.call('fs_list', prefix ? { prefix } : {})).map((f) => f.path));
      } catch { return undefined; }
    },
    nested,
    runSource: (source, io, scope, st) => execStmts(ip, syntax.parse(source).Stmts, io, scope, st),
  };

  return {
    describe: () => [...commands.values()].map((c) => ({ name: c.name, summary: c.summary })),
    async run(source, runOptions = {}) {
      const out = bufferSink();
      const err = bufferSink();
      const st: RunState = { commands: 0, depth: 0, condDepth: 0, refusals: 0, lastRefusal: 0, trace: [], functions: new Map(), locals: [], ...(runOptions.signal ? { signal: runOptions.signal } : {}) };
      const scope = createScope(runOptions.env ?? {});
      let exitCode: number;
      try {
        exitCode = await ip.runSource(source, { stdin: runOptions.stdin ?? '', cursor: { pos: 0 }, out, err }, scope, st);
      } catch (e) {
        if (e instanceof ExitSignal) exitCode = e.status;
        else if (e instanceof ExpansionError) { err.write(`adf_shell: ${e.message}\n`); exitCode = 127; }
        else if (e instanceof TimeoutSignal) exitCode = 124;
        else if (e instanceof LoopSignal) exitCode = 0;
        else if (e instanceof ReturnSignal) exitCode = e.status;
        else if (e instanceof TrustError) { err.write(`${e.message}\n`); exitCode = e.code === 'SHELL_SYNTAX' ? 2 : e.code === 'SHELL_ABORTED' ? 130 : 2; }
        else throw e;
      }
      return { exitCode, stdout: out.text(), stderr: err.text(), trace: st.trace };
    },
  };

}

export type { ShellSyntax };
