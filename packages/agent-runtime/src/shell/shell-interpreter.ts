import { TrustError, isDenied } from '@trust/core';
import { createShellSyntax } from './shell-syntax.js';
import type { Node, ShellSyntax } from './shell-syntax.js';
import { expandFields, expandString, matchCasePattern } from './shell-expand.js';
import type { ExpandScope } from './shell-expand.js';
import { EXIT_DENIED, EXIT_NOT_FOUND, EXIT_REJECTED } from './shell-types.js';
import type { CommandContext, ShellCommand, ShellGate, ShellResult, ShellSink, ShellTraceEntry } from './shell-types.js';
import { createDefaultCommands } from './commands/index.js';
import { fileContent } from './file-content.js';
import { compareIntegers } from './integer-compare.js';

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

class ExitSignal { constructor(readonly status: number) {} }
class ReturnSignal { constructor(readonly status: number) {} }
class LoopSignal { constructor(readonly kind: 'break' | 'continue', public levels: number) {} }

interface Io { readonly stdin: string; readonly out: ShellSink; readonly err: ShellSink }

interface RunState {
  commands: number;
  depth: number;
  trace: ShellTraceEntry[];
  functions: Map<string, Node>;
  signal?: AbortSignal;
}

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

  const bufferSink = (): ShellSink & { text(): string } => {
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
  async function dispatch(argv: readonly string[], extraTools: readonly string[], io: Io, scope: ExpandScope, st: RunState, prepare?: () => Promise<string>): Promise<number> {
    if (st.signal?.aborted) throw new TrustError('SHELL_ABORTED', 'adf_shell: aborted');
    st.commands += 1;
    if (st.commands > maxCommands) throw new TrustError('SHELL_LIMIT', `adf_shell: more than ${maxCommands} commands in one run`);
    const name = argv[0] ?? '';
    const fn = st.functions.get(name);
    const command = fn ? undefined : commands.get(name);
    if (!fn && !command) {
      st.trace.push({ command: name, tools: [], outcome: 'unknown' });
      io.err.write(`adf_shell: ${name}: command not found (this is a virtual shell; run \`help\` for its commands)\n`);
      return EXIT_NOT_FOUND;
    }
    const tools = [...new Set([...(command ? command.tools(argv.slice(1)) : []), ...extraTools])];
    const allowed = await preflight(name, tools, io, st);
    if (allowed !== 0) return allowed;
    if (prepare) {
      try { io = { ...io, stdin: await prepare() }; } catch (e) {
        io.err.write(`adf_shell: ${name}: ${(e as Error)?.message ?? String(e)}\n`);
        return e instanceof TrustError && rejection.has(e.code) ? EXIT_REJECTED : 1;
      }
    }
    if (fn) return callFunction(fn, argv.slice(1), io, scope, st);
    let rejected: TrustError | undefined;
    const ctx: CommandContext = {
      stdin: io.stdin,
      out: io.out,
      err: io.err,
      tool: async (tool, args) => {
        if (!tools.includes(tool)) throw new TrustError('SHELL_UNDECLARED_TOOL', `adf_shell: ${name} used ${tool}, which it did not declare`);
        try {
          return await gate.call(tool, args);
        } catch (e) {
          // A human's rejection at call time (the gate's own approval) ends the command with 130,
          // even if the command itself would have caught the error.
          if (e instanceof TrustError && rejection.has(e.code)) rejected = e;
          throw e;
        }
      },
      script: async (source, o) => {
        const child: ExpandScope = o.child ? { vars: new Map(scope.vars), positional: [...(o.args ?? [])], lastStatus: 0 } : scope;
        return nested(st, () => runSource(source, io, child, st));
      },
      command: (inner) => dispatch(inner, [], io, scope, st),
    };
    try {
      const status = await command!.run(ctx, argv.slice(1));
      if (rejected) { st.trace.push({ command: name, tools, outcome: 'rejected' }); return EXIT_REJECTED; }
      return status;
    } catch (e) {
      if (rejected) { st.trace.push({ command: name, tools, outcome: 'rejected' }); io.err.write(`${name}: ${rejected.message}\n`); return EXIT_REJECTED; }
      if (e instanceof ExitSignal || e instanceof ReturnSignal || e instanceof LoopSignal) throw e;
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
        return rejected ? EXIT_REJECTED : EXIT_DENIED;
      }
    }
    st.trace.push({ command: name, tools, outcome: 'ran' });
    return 0;
  }

  async function nested<T>(st: RunState, f: () => Promise<T>): Promise<T> {
    if (st.depth >= maxDepth) throw new TrustError('SHELL_LIMIT', `adf_shell: nesting deeper than ${maxDepth}`);
    st.depth += 1;
    try { return await f(); } finally { st.depth -= 1; }
  }

  async function callFunction(body: Node, args: readonly string[], io: Io, scope: ExpandScope, st: RunState): Promise<number> {
    const saved = scope.positional;
    scope.positional = [...args];
    try {
      return await nested(st, () => execStmt(body, io, scope, st));
    } catch (e) {
      if (e instanceof ReturnSignal) return e.status;
      throw e;
    } finally {
      scope.positional = saved;
    }
  }

  async function runSource(source: string, io: Io, scope: ExpandScope, st: RunState): Promise<number> {
    const file = syntax.parse(source);
    return execStmts(file.Stmts, io, scope, st);
  }

  async function execStmts(stmts: Node[], io: Io, scope: ExpandScope, st: RunState): Promise<number> {
    let status = 0;
    for (const s of stmts) {
      status = await execStmt(s, io, scope, st);
      scope.lastStatus = status;
    }
    return status;
  }

  const substRunner = (io: Io, scope: ExpandScope, st: RunState) => async (stmts: Node[]): Promise<string> => {
    const out = bufferSink();
    await nested(st, () => execStmts(stmts, { stdin: '', out, err: io.err }, scope, st));
    return out.text();
  };

  async function execStmt(stmt: Node, io: Io, scope: ExpandScope, st: RunState): Promise<number> {
    const subst = substRunner(io, scope, st);
    // Redirects are resolved first: their tools join the command's at the choke point.
    let stdin = io.stdin;
    let out = io.out;
    let err = io.err;
    const writes: Array<{ path: string; append: boolean; sink: ShellSink & { text(): string } }> = [];
    const redirTools: string[] = [];
    const reads: string[] = [];
    for (const r of stmt.Redirs as Node[]) {
      const op = syntax.ops.redirect.get(r.Op);
      const fd = r.N ? r.N.Value : undefined;
      if (op === '<<' || op === '<<-') {
        const quotedDelim = (r.Word.Parts as Node[]).some((p) => syntax.nodeType(p) !== 'Lit');
        let body = r.Hdoc ? (quotedDelim ? literalWord(r.Hdoc) : await expandString(r.Hdoc, scope, syntax, subst)) : '';
        if (op === '<<-') body = body.replace(/^\t+/gm, '');
        stdin = body;
        continue;
      }
      if (op === '<<<') { stdin = `${await expandString(r.Word, scope, syntax, subst)}\n`; continue; }
      const target = await expandString(r.Word, scope, syntax, subst);
      if (op === '>&' || op === '<&') {
        if (op === '>&' && (fd === undefined || fd === '1') && target === '2') out = err;
        else if (op === '>&' && fd === '2' && target === '1') err = out;
        else if (op === '>&' && target === '-') { if (fd === '2') err = nullSink; else out = nullSink; }
        continue;
      }
      if (op === '<') {
        if (target === '/dev/null') { stdin = ''; continue; }
        reads.push(target);
        redirTools.push('fs_read');
        continue;
      }
      if (op === '>' || op === '>>' || op === '>|' || op === '&>' || op === '&>>') {
        const append = op === '>>' || op === '&>>';
        const both = op === '&>' || op === '&>>';
        const sink = target === '/dev/null' ? null : bufferSink();
        if (sink) { writes.push({ path: target, append, sink }); redirTools.push('fs_write'); }
        const s = sink ?? nullSink;
        if (both) { out = s; err = s; } else if (fd === '2') err = s; else out = s;
        continue;
      }
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported redirect ${op ?? r.Op}`);
    }
    const cmd = stmt.Cmd;
    let status: number;
    if (cmd && syntax.nodeType(cmd) === 'CallExpr') {
      status = await execCall(cmd, redirTools, { stdin, out, err }, scope, st, reads, writes);
    } else {
      if (redirTools.length > 0) {
        const blocked = await preflight('(redirect)', [...new Set(redirTools)], io, st);
        if (blocked !== 0) return finishStatus(stmt, blocked);
      }
      if (reads.length > 0) {
        try { stdin = await readFiles(reads); } catch (e) {
          io.err.write(`adf_shell: ${(e as Error)?.message ?? String(e)}\n`);
          return finishStatus(stmt, e instanceof TrustError && rejection.has(e.code) ? EXIT_REJECTED : 1);
        }
      }
      status = cmd ? await execCompound(cmd, { stdin, out, err }, scope, st) : 0;
      const w = await flushWrites(writes, io);
      if (w !== 0) status = w;
    }
    return finishStatus(stmt, status);
  }

  const finishStatus = (stmt: Node, status: number) => (stmt.Negated ? (status === 0 ? 1 : 0) : status);

  async function readFiles(paths: string[]): Promise<string> {
    let s = '';
    for (const p of paths) s += fileContent(await gate.call('fs_read', { path: p }));
    return s;
  }

  /** Writes redirect output through fs_write; returns a failure status (130 on a human's rejection) or 0. */
  async function flushWrites(writes: Array<{ path: string; append: boolean; sink: { text(): string } }>, io: Io): Promise<number> {
    for (const w of writes) {
      try {
        await gate.call('fs_write', { path: w.path, content: w.sink.text(), mode: w.append ? 'append' : 'write' });
      } catch (e) {
        io.err.write(`adf_shell: ${w.path}: ${(e as Error)?.message ?? String(e)}\n`);
        return e instanceof TrustError && rejection.has(e.code) ? EXIT_REJECTED : 1;
      }
    }
    return 0;
  }

  async function execCall(cmd: Node, redirTools: string[], io: Io, scope: ExpandScope, st: RunState, reads: string[], writes: Array<{ path: string; append: boolean; sink: ShellSink & { text(): string } }>): Promise<number> {
    const subst = substRunner(io, scope, st);
    const argv: string[] = [];
    for (const w of cmd.Args as Node[]) argv.push(...(await expandFields(w, scope, syntax, subst)));
    const assigns: Array<[string, string]> = [];
    for (const a of cmd.Assigns as Node[]) assigns.push([a.Name.Value, a.Value ? await expandString(a.Value, scope, syntax, subst) : '']);
    if (argv.length === 0) {
      for (const [k, v] of assigns) scope.vars.set(k, v);
      if (redirTools.length > 0) {
        const blocked = await preflight('(redirect)', [...new Set(redirTools)], io, st);
        if (blocked !== 0) return blocked;
        return flushWrites(writes, io);
      }
      return 0;
    }
    const builtin = await execBuiltin(argv, io, scope, st);
    if (builtin !== undefined) return builtin;
    // The choke point preflights the command and its redirects together; the redirect input
    // is read, and the output written, only if the command was allowed to run.
    const saved = new Map<string, string | undefined>();
    for (const [k, v] of assigns) { saved.set(k, scope.vars.get(k)); scope.vars.set(k, v); }
    try {
      const prepare = reads.length > 0 ? () => readFiles(reads) : undefined;
      const status = await dispatch(argv, redirTools, io, scope, st, prepare);
      if (status === EXIT_DENIED || status === EXIT_REJECTED || status === EXIT_NOT_FOUND) return status;
      const w = await flushWrites(writes, io);
      return w !== 0 ? w : status;
    } finally {
      for (const [k, v] of saved) if (v === undefined) scope.vars.delete(k); else scope.vars.set(k, v);
    }
  }

  /** Shell-level builtins that change the shell itself; they use no tools. */
  async function execBuiltin(argv: string[], io: Io, scope: ExpandScope, st: RunState): Promise<number | undefined> {
    const [name, ...args] = argv;
    switch (name) {
      case 'export': case 'local': case 'declare': case 'readonly':
        for (const a of args) { const i = a.indexOf('='); if (i > 0) scope.vars.set(a.slice(0, i), a.slice(i + 1)); else if (!scope.vars.has(a)) scope.vars.set(a, ''); }
        st.trace.push({ command: name!, tools: [], outcome: 'ran' });
        return 0;
      case 'unset':
        for (const a of args) { scope.vars.delete(a); st.functions.delete(a); }
        return 0;
      case 'shift': { const n = Number(args[0] ?? 1); scope.positional = scope.positional.slice(Number.isFinite(n) ? n : 1); return 0; }
      case 'exit': throw new ExitSignal(Number(args[0] ?? scope.lastStatus) & 255);
      case 'return': throw new ReturnSignal(Number(args[0] ?? scope.lastStatus) & 255);
      case 'set': return 0;
      case 'break': case 'continue': throw new LoopSignal(name, Math.max(1, Number(args[0] ?? 1) || 1));
      default: return undefined;
    }
  }

  /** Runs one loop iteration; `break N`/`continue N` unwind N loops. */
  async function loopBody(f: () => Promise<number>): Promise<number | 'break' | 'continue'> {
    try { return await f(); } catch (e) {
      if (!(e instanceof LoopSignal)) throw e;
      if (e.levels > 1) { e.levels -= 1; throw e; }
      return e.kind;
    }
  }

  async function execCompound(cmd: Node, io: Io, scope: ExpandScope, st: RunState): Promise<number> {
    const t = syntax.nodeType(cmd);
    switch (t) {
      case 'BinaryCmd': {
        const op = syntax.ops.binary.get(cmd.Op);
        if (op === '&&') { const a = await execStmt(cmd.X, io, scope, st); scope.lastStatus = a; return a === 0 ? execStmt(cmd.Y, io, scope, st) : a; }
        if (op === '||') { const a = await execStmt(cmd.X, io, scope, st); scope.lastStatus = a; return a !== 0 ? execStmt(cmd.Y, io, scope, st) : a; }
        // pipeline: buffered, left to right; every stage passes the choke point on its own
        const buf = bufferSink();
        await execStmt(cmd.X, { stdin: io.stdin, out: buf, err: op === '|&' ? buf : io.err }, scope, st);
        return execStmt(cmd.Y, { stdin: buf.text(), out: io.out, err: io.err }, scope, st);
      }
      case 'Block': return execStmts(cmd.Stmts, io, scope, st);
      case 'Subshell': return nested(st, () => execStmts(cmd.Stmts, io, { vars: new Map(scope.vars), positional: [...scope.positional], lastStatus: scope.lastStatus }, st));
      case 'FuncDecl': st.functions.set(cmd.Name.Value, cmd.Body); return 0;
      case 'IfClause': {
        let clause = cmd;
        while (clause) {
          if (clause.Cond.length === 0) return execStmts(clause.Then, io, scope, st);
          if ((await execStmts(clause.Cond, io, scope, st)) === 0) return execStmts(clause.Then, io, scope, st);
          clause = clause.Else;
        }
        return 0;
      }
      case 'WhileClause': {
        let status = 0;
        for (let i = 0; ; i++) {
          if (i >= maxLoop) throw new TrustError('SHELL_LIMIT', `adf_shell: loop ran more than ${maxLoop} times`);
          const c = await execStmts(cmd.Cond, io, scope, st);
          if (cmd.Until ? c === 0 : c !== 0) break;
          const body = await loopBody(() => execStmts(cmd.Do, io, scope, st));
          if (body === 'break') break;
          status = typeof body === 'number' ? body : 0;
        }
        return status;
      }
      case 'ForClause': {
        if (syntax.nodeType(cmd.Loop) !== 'WordIter') throw new TrustError('SHELL_UNSUPPORTED', 'adf_shell: C-style for loops are not supported');
        const subst = substRunner(io, scope, st);
        const items: string[] = [];
        if (cmd.Loop.Items.length === 0) items.push(...scope.positional);
        for (const w of cmd.Loop.Items as Node[]) items.push(...(await expandFields(w, scope, syntax, subst)));
        if (items.length > maxLoop) throw new TrustError('SHELL_LIMIT', `adf_shell: loop ran more than ${maxLoop} times`);
        let status = 0;
        for (const item of items) {
          scope.vars.set(cmd.Loop.Name.Value, item);
          const body = await loopBody(() => execStmts(cmd.Do, io, scope, st));
          if (body === 'break') break;
          status = typeof body === 'number' ? body : 0;
        }
        return status;
      }
      case 'CaseClause': {
        const subst = substRunner(io, scope, st);
        const value = await expandString(cmd.Word, scope, syntax, subst);
        for (const item of cmd.Items as Node[]) {
          for (const p of item.Patterns as Node[]) if (matchCasePattern(value, await expandString(p, scope, syntax, subst))) return execStmts(item.Stmts, io, scope, st);
        }
        return 0;
      }
      case 'TestClause': {
        // `[[ … ]]`: file tests read through fs_read, so they are preflighted like any command.
        const tools = usesFileTest(cmd.X) ? ['fs_read'] : [];
        st.commands += 1;
        const blocked = await preflight('[[', tools, io, st);
        if (blocked !== 0) return blocked;
        try {
          return (await evalTest(cmd.X, scope, st, io)) ? 0 : 1;
        } catch (e) {
          if (e instanceof TrustError && (e.code === 'SHELL_LIMIT' || e.code === 'SHELL_ABORTED')) throw e;
          io.err.write(`[[: ${(e as Error)?.message ?? String(e)}\n`);
          return e instanceof TrustError && rejection.has(e.code) ? EXIT_REJECTED : 2;
        }
      }
      case 'DeclClause': {
        const subst = substRunner(io, scope, st);
        for (const a of cmd.Args as Node[]) {
          if (a.Name) scope.vars.set(a.Name.Value, a.Value ? await expandString(a.Value, scope, syntax, subst) : scope.vars.get(a.Name.Value) ?? '');
        }
        st.trace.push({ command: cmd.Variant?.Value ?? 'declare', tools: [], outcome: 'ran' });
        return 0;
      }
      default:
        throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported syntax ${t}`, { hint: 'supported: commands, pipelines, && ||, ;, if, while/until, for-in, case, functions, { }, ( ), $(…), here-docs' });
    }
  }

  function usesFileTest(x: Node): boolean {
    if (!x) return false;
    const t = syntax.nodeType(x);
    if (t === 'UnaryTest') return ['-e', '-f', '-s', '-d'].includes(syntax.ops.testUnary.get(x.Op) ?? '') || usesFileTest(x.X);
    if (t === 'BinaryTest') return usesFileTest(x.X) || usesFileTest(x.Y);
    if (t === 'ParenTest') return usesFileTest(x.X);
    return false;
  }

  async function evalTest(x: Node, scope: ExpandScope, st: RunState, io: Io): Promise<boolean> {
    const t = syntax.nodeType(x);
    const subst = substRunner(io, scope, st);
    const word = (w: Node) => expandString(w, scope, syntax, subst);
    if (t === 'Word') return (await word(x)) !== '';
    if (t === 'ParenTest') return evalTest(x.X, scope, st, io);
    if (t === 'UnaryTest') {
      const op = syntax.ops.testUnary.get(x.Op);
      if (op === '!') return !(await evalTest(x.X, scope, st, io));
      const v = await word(x.X);
      if (op === '-n') return v !== '';
      if (op === '-z') return v === '';
      if (op === '-e' || op === '-f' || op === '-s') {
        try { const c = fileContent(await gate.call('fs_read', { path: v })); return op !== '-s' || c.length > 0; } catch (e) {
          if (e instanceof TrustError && rejection.has(e.code)) throw e;
          return false;
        }
      }
      if (op === '-d') return false; // the virtual file store has no directories
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported test operator in [[ ]]`);
    }
    if (t === 'BinaryTest') {
      const op = syntax.ops.testBinary.get(x.Op);
      if (op === '&&') return (await evalTest(x.X, scope, st, io)) && evalTest(x.Y, scope, st, io);
      if (op === '||') return (await evalTest(x.X, scope, st, io)) || evalTest(x.Y, scope, st, io);
      const a = await word(x.X);
      const b = await word(x.Y);
      const numeric = compareIntegers(op, a, b, (s) => new TrustError('SHELL_ARITH', `integer expression expected: ${s}`));
      if (numeric !== undefined) return numeric;
      switch (op) {
        case '==': case '=': return matchCasePattern(a, b);
        case '!=': return !matchCasePattern(a, b);
        case '=~': try { return new RegExp(b).test(a); } catch { throw new TrustError('SHELL_SYNTAX', `invalid regular expression ${JSON.stringify(b)}`); }
        case '<': return a < b;
        case '>': return a > b;
      }
    }
    throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported [[ ]] expression ${t}`);
  }

  return {
    describe: () => [...commands.values()].map((c) => ({ name: c.name, summary: c.summary })),
    async run(source, runOptions = {}) {
      const out = bufferSink();
      const err = bufferSink();
      const st: RunState = { commands: 0, depth: 0, trace: [], functions: new Map(), signal: runOptions.signal };
      const scope: ExpandScope = { vars: new Map(Object.entries(runOptions.env ?? {})), positional: [], lastStatus: 0 };
      let exitCode: number;
      try {
        exitCode = await runSource(source, { stdin: runOptions.stdin ?? '', out, err }, scope, st);
      } catch (e) {
        if (e instanceof ExitSignal) exitCode = e.status;
        else if (e instanceof LoopSignal) exitCode = 0;
        else if (e instanceof ReturnSignal) exitCode = e.status;
        else if (e instanceof TrustError) { err.write(`${e.message}\n`); exitCode = e.code === 'SHELL_SYNTAX' ? 2 : e.code === 'SHELL_ABORTED' ? 130 : 2; }
        else throw e;
      }
      return { exitCode, stdout: out.text(), stderr: err.text(), trace: st.trace };
    },
  };

  function literalWord(word: Node): string {
    return (word.Parts as Node[]).map((p) => (syntax.nodeType(p) === 'Lit' ? p.Value : '')).join('');
  }
}

export type { ShellSyntax };
