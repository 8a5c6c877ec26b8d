import { TrustError, isDenied } from '@trust/core';
import { createShellSyntax } from './shell-syntax.js';
import type { ShellSyntax } from './shell-syntax.js';
import type { ShellCommand, ShellGate, ShellResult, ShellSink } from './shell-types.js';
import { createDefaultCommands } from './commands/index.js';
import { checkOptions } from '../options/strict-options.js';
import { shellOptionsSchema } from './shell-options.js';
import {
  ExitSignal,
  ExpansionError,
  LoopSignal,
  ReturnSignal,
  TimeoutSignal,
  asSubshell,
  childScope,
  createScope,
} from './shell-state.js';
import type { BufferSink, RunState } from './shell-state.js';
import type { Interp } from './shell-interp.js';
import { createDispatcher } from './shell-dispatch.js';
import { execStmt, execStmts } from './shell-exec.js';
import { execCompound } from './shell-compound.js';
import { normalizeToolArgs } from './shell-path.js';
import { literalPrefix, matchGlob } from './shell-glob.js';
import { listedFiles } from './commands/files.js';
import { checkScript } from './shell-check.js';

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
  run(
    source: string,
    options?: {
      readonly stdin?: string;
      readonly env?: Readonly<Record<string, string>>;
      readonly signal?: AbortSignal;
    },
  ): Promise<ShellResult>;
  /** The tools each command resolves to (for docs and the `adf_shell` tool description). */
  describe(): ReadonlyArray<{ readonly name: string; readonly summary: string }>;
}

/** Default deny codes treated as a human's rejection. */
export const DEFAULT_REJECTION_CODES: readonly string[] = Object.freeze([
  'APPROVAL_REJECTED',
  'APPROVAL_DENIED',
  'TOOL_APPROVAL_REJECTED',
  'TOOL_REJECTED',
  'HIL_REJECTED',
]);

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
export function createShell(input: ShellOptions): Shell {
  const options = checkOptions('createShell', shellOptionsSchema, input);
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
      write(t) {
        if (s.length + t.length > maxOut) {
          if (!truncated) {
            s += t.slice(0, Math.max(0, maxOut - s.length));
            truncated = true;
          }
        } else s += t;
      },
      text: () => (truncated ? `${s}\n[output truncated at ${maxOut} bytes]` : s),
    };
  };
  const nullSink: ShellSink = { write() {} };

  const checkConfig = { syntax, commands, gate, rejection, maxDepth };
  const { dispatch, preflight, nested } = createDispatcher(
    { gate, commands, maxCommands, maxDepth, rejection },
    () => ip,
  );

  const ip: Interp = {
    syntax,
    maxLoop,
    nullSink,
    bufferSink,
    isRejection: (e) => e instanceof TrustError && rejection.has(e.code),
    dispatch,
    preflight,
    call: (tool, args) => gate.call(tool, normalizeToolArgs(args)),
    execStmt: (stmt, io, scope, st) => execStmt(ip, stmt, io, scope, st),
    execStmts: (stmts, io, scope, st) => execStmts(ip, stmts, io, scope, st),
    execCompound: (cmd, io, scope, st) => execCompound(ip, cmd, io, scope, st),
    subst: (io, scope, st) => async (stmts) => {
      const out = bufferSink();
      const before = st.refusals;
      // bash (not in POSIX mode) clears errexit inside $( … ); the status still reaches the caller
      const child = childScope(scope, { errexit: false });
      let status = await nested(st, () =>
        asSubshell(io.err, () => execStmts(ip, stmts, { stdin: '', cursor: { pos: 0 }, out, err: io.err }, child, st)),
      );
      if (st.refusals > before) {
        status = st.lastRefusal;
        scope.substRefused = status;
      }
      scope.substStatus = status;
      return out.text();
    },
    glob: (st) => async (pattern) => {
      const d = await gate.preflight('fs_list');
      st.trace.push({
        command: '(glob)',
        tools: ['fs_list'],
        outcome: isDenied(d) ? (rejection.has(d.code) ? 'rejected' : 'disabled') : 'ran',
      });
      if (isDenied(d)) return undefined;
      const prefix = literalPrefix(pattern.replace(/^(\.\/)+/, ''));
      try {
        return matchGlob(
          pattern,
          listedFiles(await gate.call('fs_list', prefix ? { prefix } : {})).map((f) => f.path),
        );
      } catch {
        return undefined;
      }
    },
    nested,
    runSource: async (source, io, scope, st) => {
      const file = syntax.parse(source);
      // The whole script is checked before any of it runs (and again for each script run later).
      const check = await checkScript(checkConfig, file, new Set(st.functions.keys()));
      if (check.kind === 'refused') {
        st.trace.push(check.trace);
        io.err.write(check.message);
        st.refusals += 1;
        st.lastRefusal = check.status;
        return check.status;
      }
      return execStmts(ip, file.Stmts, io, scope, st);
    },
  };

  return {
    describe: () => [...commands.values()].map((c) => ({ name: c.name, summary: c.summary })),
    async run(source, runOptions = {}) {
      const out = bufferSink();
      const err = bufferSink();
      const st: RunState = {
        commands: 0,
        depth: 0,
        condDepth: 0,
        refusals: 0,
        lastRefusal: 0,
        trace: [],
        functions: new Map(),
        locals: [],
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      };
      const scope = createScope(runOptions.env ?? {});
      let exitCode: number;
      try {
        exitCode = await ip.runSource(
          source,
          { stdin: runOptions.stdin ?? '', cursor: { pos: 0 }, out, err },
          scope,
          st,
        );
      } catch (e) {
        if (e instanceof ExitSignal) exitCode = e.status;
        else if (e instanceof ExpansionError) {
          err.write(`adf_shell: ${e.message}\n`);
          exitCode = 127;
        } else if (e instanceof TimeoutSignal) exitCode = 124;
        else if (e instanceof LoopSignal) exitCode = 0;
        else if (e instanceof ReturnSignal) exitCode = e.status;
        else if (e instanceof TrustError) {
          err.write(`${e.message}\n`);
          exitCode = e.code === 'SHELL_SYNTAX' ? 2 : e.code === 'SHELL_ABORTED' ? 130 : 2;
        } else throw e;
      }
      return { exitCode, stdout: out.text(), stderr: err.text(), trace: st.trace };
    },
  };
}

export type { ShellSyntax };
