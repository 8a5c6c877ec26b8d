import { TrustError } from '@trust/core';
import type { Assign, CallExpr, Command, Stmt, Word } from './shell-ast.js';
import { expandFields, expandString } from './shell-expand.js';
import { arith } from './shell-arith.js';
import type { Interp } from './shell-interp.js';
import { ExitSignal } from './shell-state.js';
import type { BufferSink, ExpandScope, Io, RunState } from './shell-state.js';
import { EXIT_DENIED, EXIT_NOT_FOUND, EXIT_REJECTED } from './shell-types.js';
import type { ShellSink } from './shell-types.js';
import { execBuiltin } from './shell-builtins.js';
import { fileContent } from './file-content.js';

interface PendingWrite { readonly path: string; readonly append: boolean; readonly sink: BufferSink }

/** Runs statements in order; `$?` follows each. */
export async function execStmts(ip: Interp, stmts: readonly Stmt[], io: Io, scope: ExpandScope, st: RunState): Promise<number> {
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
  if (stmt.Background) throw new TrustError('SHELL_UNSUPPORTED', 'adf_shell: unsupported syntax: background jobs (&); commands run one after another, drop the &');
  if (stmt.Negated) st.condDepth += 1;
  let status: number;
  try { status = await runStmt(ip, stmt, io, scope, st); } finally { if (stmt.Negated) st.condDepth -= 1; }
  if (stmt.Negated) return status === 0 ? 1 : 0;
  if (status !== 0 && scope.opts.errexit && st.condDepth === 0 && errexitApplies(ip, stmt.Cmd)) throw new ExitSignal(status);
  return status;
}

function errexitApplies(ip: Interp, cmd: Command | null): boolean {
  if (!cmd) return true;
  if (cmd.type === 'BinaryCmd') { const op = ip.syntax.ops.binary.get(cmd.Op); return op === '|' || op === '|&'; }
  return cmd.type === 'CallExpr' || cmd.type === 'Subshell' || cmd.type === 'TestClause';
}

const fail = (io: Io, message: string, status: number): number => { io.err.write(`adf_shell: ${message}\n`); return status; };

async function runStmt(ip: Interp, stmt: Stmt, io: Io, scope: ExpandScope, st: RunState): Promise<number> {
  const subst = ip.subst(io, scope, st);
  // Redirects are resolved first: their tools join the command's at the choke point.
  let stdin = io.stdin;
  let out = io.out;
  let err = io.err;
  const writes: PendingWrite[] = [];
  const redirTools: string[] = [];
  const reads: string[] = [];
  for (const r of stmt.Redirs) {
    const op = ip.syntax.ops.redirect.get(r.Op);
    const fd = r.N ? r.N.Value : undefined;
    if (fd !== undefined && fd !== '0' && fd !== '1' && fd !== '2') throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported syntax: file descriptor ${fd} (only 0, 1 and 2 exist)`);
    if (op === '<<' || op === '<<-') {
      const quotedDelim = r.Word.Parts.some((p) => p.type !== 'Lit');
      let body = r.Hdoc ? (quotedDelim ? literalWord(r.Hdoc) : await expandString(r.Hdoc, scope, ip.syntax, subst)) : '';
      if (op === '<<-') body = body.replace(/^\t+/gm, '');
      stdin = body;
      continue;
    }
    scope.substStatus = undefined;
    const target = op === '<<<' ? `${await expandString(r.Word, scope, ip.syntax, subst)}\n` : await expandString(r.Word, scope, ip.syntax, subst);
    // A redirect built from a failed (or refused) substitution is not opened at all.
    if (scope.substStatus !== undefined && scope.substStatus !== 0) return fail(io, `redirect target not used: its command substitution failed with status ${scope.substStatus}`, scope.substStatus);
    if (op === '<<<') { stdin = target; continue; }
    if (op === '>&' || op === '<&') {
      if (op === '>&' && (fd === undefined || fd === '1') && target === '2') out = err;
      else if (op === '>&' && fd === '2' && target === '1') err = out;
      else if (op === '>&' && (target === '1' || target === '2')) { /* 1>&1, 2>&2 */ }
      else if (target === '-') { if (fd === '2') err = ip.nullSink; else if (op === '>&') out = ip.nullSink; else stdin = ''; }
      else if (op === '>&' && fd === undefined && !/^[0-9]+$/.test(target)) { out = err = redirectTo(ip, target, false, writes, redirTools); }
      else if (op === '<&' && target === '0') { /* <&0 */ }
      else throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported syntax: redirect ${fd ?? ''}${op}${target} (only 1 and 2 can be duplicated)`);
      continue;
    }
    if (op === '<') {
      if (target === '/dev/null') { stdin = ''; continue; }
      reads.push(target);
      redirTools.push('fs_read');
      continue;
    }
    if (op === '>' || op === '>>' || op === '>|' || op === '&>' || op === '&>>') {
      const s = redirectTo(ip, target, op === '>>' || op === '&>>', writes, redirTools);
      if (op === '&>' || op === '&>>') { out = s; err = s; } else if (fd === '2') err = s; else out = s;
      continue;
    }
    throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported syntax: redirect ${op ?? r.Op}`);
  }
  const cmd = stmt.Cmd;
  const rio: Io = stdin === io.stdin ? { stdin, cursor: io.cursor, out, err } : { stdin, cursor: { pos: 0 }, out, err };
  if (cmd && cmd.type === 'CallExpr') return execCall(ip, cmd, redirTools, rio, scope, st, reads, writes);
  if (redirTools.length > 0) {
    const blocked = await ip.preflight('(redirect)', [...new Set(redirTools)], io, st);
    if (blocked !== 0) return blocked;
  }
  if (reads.length > 0) {
    try { stdin = await readFiles(ip, reads); } catch (e) { return fail(io, errorText(e), ip.isRejection(e) ? EXIT_REJECTED : 1); }
  }
  const status = cmd ? await ip.execCompound(cmd, stdin === io.stdin ? rio : { stdin, cursor: { pos: 0 }, out, err }, scope, st) : 0;
  const w = await flushWrites(ip, writes, io);
  return w !== 0 ? w : status;
}

function redirectTo(ip: Interp, target: string, append: boolean, writes: PendingWrite[], tools: string[]): ShellSink {
  if (target === '/dev/null') return ip.nullSink;
  if (target === '') throw new TrustError('SHELL_REDIRECT', 'adf_shell: ambiguous redirect: the target is empty');
  const sink = ip.bufferSink();
  writes.push({ path: target, append, sink });
  tools.push('fs_write');
  return sink;
}

const errorText = (e: unknown) => (e as Error)?.message ?? String(e);

async function readFiles(ip: Interp, paths: readonly string[]): Promise<string> {
  let s = '';
  for (const p of paths) s += fileContent(await ip.call('fs_read', { path: p }));
  return s;
}

/** Writes redirect output through fs_write; returns a failure status (130 on a human's rejection) or 0. */
async function flushWrites(ip: Interp, writes: readonly PendingWrite[], io: Io): Promise<number> {
  for (const w of writes) {
    try {
      await ip.call('fs_write', { path: w.path, content: w.sink.text(), mode: w.append ? 'append' : 'write' });
    } catch (e) {
      return fail(io, `${w.path}: ${errorText(e)}`, ip.isRejection(e) ? EXIT_REJECTED : 1);
    }
  }
  return 0;
}

async function execCall(ip: Interp, cmd: CallExpr, redirTools: readonly string[], io: Io, scope: ExpandScope, st: RunState, reads: readonly string[], writes: readonly PendingWrite[]): Promise<number> {
  const subst = ip.subst(io, scope, st);
  scope.substStatus = undefined;
  scope.substRefused = undefined;
  const argv: string[] = [];
  const glob = ip.glob(st);
  for (const w of cmd.Args) argv.push(...(await expandFields(w, scope, ip.syntax, subst, glob)));
  const assigns: Array<() => void> = [];
  for (const a of cmd.Assigns) assigns.push(await prepareAssign(ip, a, scope, subst));
  // Fail closed: a command never runs on the output of a substitution the gate refused.
  if (scope.substRefused !== undefined) return fail(io, `${argv[0] ?? 'assignment'}: not run: a command substitution in it was refused (${scope.substRefused})`, scope.substRefused);
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
      scope.vars.delete(n); scope.arrays.delete(n);
      if (arr) scope.arrays.set(n, arr); else if (v !== undefined) scope.vars.set(n, v);
    }
  }
}

/** Expands an assignment now (bash order) and returns the function that applies it. */
export async function prepareAssign(ip: Interp, a: Assign, scope: ExpandScope, subst: (s: readonly Stmt[]) => Promise<string>): Promise<() => void> {
  const name = a.Name?.Value ?? '';
  const str = (w: Word) => expandString(w, scope, ip.syntax, subst);
  if (a.Array) {
    const items: string[] = [];
    for (const e of a.Array.Elems) {
      if (e.Index) throw new TrustError('SHELL_UNSUPPORTED', 'adf_shell: unsupported syntax: [i]=v inside ( ); assign a[i]=v separately');
      if (e.Value) items.push(...(await expandFields(e.Value, scope, ip.syntax, subst)));
    }
    return () => {
      scope.vars.delete(name);
      scope.arrays.set(name, a.Append ? [...(scope.arrays.get(name) ?? (scope.vars.has(name) ? [scope.vars.get(name)!] : [])), ...items] : items);
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

function literalWord(word: Word): string {
  return word.Parts.map((p) => (p.type === 'Lit' ? p.Value : '')).join('');
}
