import { TrustError } from '@trust/core';
import type { Assign, CallExpr, Command, Stmt, Word } from './shell-ast.js';
import { expandFields, expandString } from './shell-expand.js';
import { arith } from './shell-arith.js';
import type { Interp } from './shell-interp.js';
import { ExitSignal } from './shell-state.js';
import type { ExpandScope, Io, RunState } from './shell-state.js';
import { EXIT_DENIED, EXIT_NOT_FOUND, EXIT_REJECTED } from './shell-types.js';
import { execBuiltin } from './shell-builtins.js';
import { errorText, fail, flushWrites, readFiles, resolveRedirects } from './shell-redirects.js';
import type { PendingWrite } from './shell-redirects.js';

/** Runs statements in order; `$?` follows each. */
export async function execStmts(
  ip: Interp,
  stmts: readonly Stmt[],
  io: Io,
  scope: ExpandScope,
  st: RunState,
): Promise<number> {
  let status = 0;
  for (const s of stmts) {
    status = await ip.execStmt(s, io, scope, st);
    scope.lastStatus = status;
  }
  return status;
}

/**
 * Runs one statement: its redirects, its command, negation, and `set -e`. As in bash, `set -e`
 * acts on a failing simple command, subshell, pipeline or `[[ ]]`, never inside a condition
 * (if/while tests, the left of && and ||, a negated statement); compound commands fail through
 * the command inside them that failed.
 */
export async function execStmt(ip: Interp, stmt: Stmt, io: Io, scope: ExpandScope, st: RunState): Promise<number> {
  if (stmt.Background)
    throw new TrustError(
      'SHELL_UNSUPPORTED',
      'adf_shell: unsupported syntax: background jobs (&); commands run one after another, drop the &',
    );
  if (stmt.Negated) st.condDepth += 1;
  let status: number;
  try {
    status = await runStmt(ip, stmt, io, scope, st);
  } finally {
    if (stmt.Negated) st.condDepth -= 1;
  }
  if (stmt.Negated) return status === 0 ? 1 : 0;
  if (status !== 0 && scope.opts.errexit && st.condDepth === 0 && errexitApplies(ip, stmt.Cmd))
    throw new ExitSignal(status);
  return status;
}

function errexitApplies(ip: Interp, cmd: Command | null): boolean {
  if (!cmd) return true;
  if (cmd.type === 'BinaryCmd') {
    const op = ip.syntax.ops.binary.get(cmd.Op);
    return op === '|' || op === '|&';
  }
  return cmd.type === 'CallExpr' || cmd.type === 'Subshell' || cmd.type === 'TestClause';
}

async function runStmt(ip: Interp, stmt: Stmt, io: Io, scope: ExpandScope, st: RunState): Promise<number> {
  // Redirects are resolved first: their tools join the command's at the choke point.
  const redirected = await resolveRedirects(ip, stmt.Redirs, io, scope, st);
  if (redirected.kind === 'failed') return redirected.status;
  const { out, err, writes, tools: redirTools, reads } = redirected;
  let stdin = redirected.stdin;
  const cmd = stmt.Cmd;
  const rio: Io = stdin === io.stdin ? { stdin, cursor: io.cursor, out, err } : { stdin, cursor: { pos: 0 }, out, err };
  if (cmd && cmd.type === 'CallExpr') return execCall(ip, cmd, redirTools, rio, scope, st, reads, writes);
  if (redirTools.length > 0) {
    const blocked = await ip.preflight('(redirect)', [...new Set(redirTools)], io, st);
    if (blocked !== 0) return blocked;
  }
  if (reads.length > 0) {
    try {
      stdin = await readFiles(ip, reads);
    } catch (e) {
      return fail(io, errorText(e), ip.isRejection(e) ? EXIT_REJECTED : 1);
    }
  }
  const status = cmd
    ? await ip.execCompound(cmd, stdin === io.stdin ? rio : { stdin, cursor: { pos: 0 }, out, err }, scope, st)
    : 0;
  const w = await flushWrites(ip, writes, io);
  return w !== 0 ? w : status;
}

async function execCall(
  ip: Interp,
  cmd: CallExpr,
  redirTools: readonly string[],
  io: Io,
  scope: ExpandScope,
  st: RunState,
  reads: readonly string[],
  writes: readonly PendingWrite[],
): Promise<number> {
  const subst = ip.subst(io, scope, st);
  scope.substStatus = undefined;
  scope.substRefused = undefined;
  const argv: string[] = [];
  const glob = ip.glob(st);
  for (const w of cmd.Args) argv.push(...(await expandFields(w, scope, ip.syntax, subst, glob)));
  const assigns: Array<() => void> = [];
  for (const a of cmd.Assigns) assigns.push(await prepareAssign(ip, a, scope, subst));
  // Fail closed: a command never runs on the output of a substitution the gate refused.
  if (scope.substRefused !== undefined)
    return fail(
      io,
      `${argv[0] ?? 'assignment'}: not run: a command substitution in it was refused (${scope.substRefused})`,
      scope.substRefused,
    );
  if (argv.length === 0) {
    for (const apply of assigns) apply();
    const status = scope.substStatus ?? 0;
    if (redirTools.length > 0) {
      const blocked = await ip.preflight('(redirect)', [...new Set(redirTools)], io, st);
      if (blocked !== 0) return blocked;
      const w = await flushWrites(ip, writes, io);
      if (w !== 0) return w;
    }
    return status;
  }
  // Prefix assignments hold for this command only (builtins included: IFS=, read …).
  const names = cmd.Assigns.map((a) => a.Name?.Value ?? '');
  const saved = names.map((n) => [n, scope.vars.get(n), scope.arrays.get(n)] as const);
  for (const apply of assigns) apply();
  try {
    const builtin = await execBuiltin(ip, argv, io, scope, st);
    if (builtin !== undefined) return builtin;
    const prepare = reads.length > 0 ? () => readFiles(ip, reads) : undefined;
    const status = await ip.dispatch(argv, redirTools, io, scope, st, prepare);
    if (status === EXIT_DENIED || status === EXIT_REJECTED || status === EXIT_NOT_FOUND) return status;
    const w = await flushWrites(ip, writes, io);
    return w !== 0 ? w : status;
  } finally {
    for (const [n, v, arr] of saved.reverse()) {
      scope.vars.delete(n);
      scope.arrays.delete(n);
      if (arr) scope.arrays.set(n, arr);
      else if (v !== undefined) scope.vars.set(n, v);
    }
  }
}

/** Expands an assignment now (bash order) and returns the function that applies it. */
export async function prepareAssign(
  ip: Interp,
  a: Assign,
  scope: ExpandScope,
  subst: (s: readonly Stmt[]) => Promise<string>,
): Promise<() => void> {
  const name = a.Name?.Value ?? '';
  const str = (w: Word) => expandString(w, scope, ip.syntax, subst);
  if (a.Array) {
    const items: string[] = [];
    for (const e of a.Array.Elems) {
      if (e.Index)
        throw new TrustError(
          'SHELL_UNSUPPORTED',
          'adf_shell: unsupported syntax: [i]=v inside ( ); assign a[i]=v separately',
        );
      if (e.Value) items.push(...(await expandFields(e.Value, scope, ip.syntax, subst)));
    }
    return () => {
      scope.vars.delete(name);
      scope.arrays.set(
        name,
        a.Append
          ? [...(scope.arrays.get(name) ?? (scope.vars.has(name) ? [scope.vars.get(name)!] : [])), ...items]
          : items,
      );
    };
  }
  const value = a.Value ? await str(a.Value) : '';
  if (a.Index) {
    const i = await arith(a.Index, scope, ip.syntax, str);
    return () => {
      const arr = scope.arrays.get(name) ?? (scope.vars.has(name) ? [scope.vars.get(name)!] : []);
      scope.vars.delete(name);
      const at = i < 0 ? arr.length + i : i;
      if (at < 0) throw new TrustError('SHELL_ARITH', `adf_shell: ${name}[${i}]: bad array subscript`);
      arr[at] = a.Append ? (arr[at] ?? '') + value : value;
      scope.arrays.set(name, arr);
    };
  }
  return () => {
    const arr = scope.arrays.get(name);
    if (arr) arr[0] = a.Append ? (arr[0] ?? '') + value : value;
    else scope.vars.set(name, a.Append ? (scope.vars.get(name) ?? '') + value : value);
  };
}
