import { TrustError } from '@trust/core';
import type { Command, Stmt } from './shell-ast.js';
import { constructName } from './shell-ast.js';
import { expandFields, expandPattern, expandString, matchCasePattern } from './shell-expand.js';
import type { Interp } from './shell-interp.js';
import { LoopSignal, asSubshell, childScope } from './shell-state.js';
import type { ExpandScope, Io, RunState } from './shell-state.js';
import { EXIT_DENIED, EXIT_REJECTED } from './shell-types.js';
import { evalTestClause } from './shell-test-expr.js';
import { prepareAssign } from './shell-exec.js';
import { BUILTIN_SUMMARIES } from './shell-builtins.js';

/** Runs one loop iteration; `break N`/`continue N` unwind N loops. */
async function loopBody(f: () => Promise<number>): Promise<number | 'break' | 'continue'> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof LoopSignal)) throw e;
    if (e.levels > 1) {
      e.levels -= 1;
      throw e;
    }
    return e.kind;
  }
}

/** Runs `f` as a condition: `set -e` does not act inside it. */
async function asCondition<T>(st: RunState, f: () => Promise<T>): Promise<T> {
  st.condDepth += 1;
  try {
    return await f();
  } finally {
    st.condDepth -= 1;
  }
}

/** A gate refusal inside a substitution used by a compound command's words. */
function refusedSubst(io: Io, scope: ExpandScope): number | undefined {
  if (scope.substRefused === undefined) return undefined;
  io.err.write(`adf_shell: not run: a command substitution in it was refused (${scope.substRefused})\n`);
  return scope.substRefused;
}

interface Stage {
  readonly stmt: Stmt;
  pipeErr: boolean;
}

function pipelineStages(ip: Interp, stmt: Stmt, out: Stage[]): void {
  const c = stmt.Cmd;
  const op = c && c.type === 'BinaryCmd' ? ip.syntax.ops.binary.get(c.Op) : undefined;
  if (c && c.type === 'BinaryCmd' && (op === '|' || op === '|&') && !stmt.Negated && stmt.Redirs.length === 0) {
    pipelineStages(ip, c.X, out);
    out[out.length - 1]!.pipeErr = op === '|&';
    pipelineStages(ip, c.Y, out);
    return;
  }
  out.push({ stmt, pipeErr: false });
}

/**
 * Pipelines run their stages left to right over buffered text, each in its own subshell (as
 * bash does without lastpipe). The status is the last stage's, or with pipefail the last failing
 * one's; a stage the gate refused gives the pipeline 126/130 (fail closed, not bash).
 */
async function pipeline(
  ip: Interp,
  cmd: Command & { type: 'BinaryCmd' },
  io: Io,
  scope: ExpandScope,
  st: RunState,
): Promise<number> {
  const stages: Stage[] = [];
  pipelineStages(
    ip,
    { type: 'Stmt', Cmd: cmd, Redirs: [], Negated: false, Background: false, Coprocess: false, Line: 0 },
    stages,
  );
  let input = io.stdin;
  let status = 0;
  let failing = 0;
  let refused: number | undefined;
  for (let i = 0; i < stages.length; i++) {
    const last = i === stages.length - 1;
    const buf = last ? undefined : ip.bufferSink();
    const out = buf ?? io.out;
    const stageIo: Io = {
      stdin: input,
      cursor: i === 0 ? io.cursor : { pos: 0 },
      out,
      err: stages[i]!.pipeErr ? out : io.err,
    };
    const before = st.refusals;
    const s = stages[i]!.stmt;
    status = await asSubshell(io.err, () => ip.execStmt(s, stageIo, childScope(scope), st));
    if (st.refusals > before && (status === EXIT_DENIED || status === EXIT_REJECTED)) refused = status;
    if (status !== 0) failing = status;
    input = buf ? buf.text() : '';
  }
  if (refused !== undefined) return refused;
  return scope.opts.pipefail ? failing : status;
}

/** Runs a compound command (everything but a simple command). */
export async function execCompound(
  ip: Interp,
  cmd: Command,
  io: Io,
  scope: ExpandScope,
  st: RunState,
): Promise<number> {
  switch (cmd.type) {
    case 'BinaryCmd': {
      const op = ip.syntax.ops.binary.get(cmd.Op);
      if (op === '&&' || op === '||') {
        const a = await asCondition(st, () => ip.execStmt(cmd.X, io, scope, st));
        scope.lastStatus = a;
        return (op === '&&' ? a === 0 : a !== 0) ? ip.execStmt(cmd.Y, io, scope, st) : a;
      }
      return pipeline(ip, cmd, io, scope, st);
    }
    case 'Block':
      return ip.execStmts(cmd.Stmts, io, scope, st);
    case 'Subshell': {
      const child = childScope(scope);
      return ip.nested(st, () => asSubshell(io.err, () => ip.execStmts(cmd.Stmts, io, child, st)));
    }
    case 'FuncDecl':
      st.functions.set(cmd.Name.Value, cmd.Body);
      return 0;
    case 'IfClause': {
      let clause: typeof cmd | null = cmd;
      while (clause) {
        if (clause.Cond.length === 0) return ip.execStmts(clause.Then, io, scope, st);
        const c = clause;
        if ((await asCondition(st, () => ip.execStmts(c.Cond, io, scope, st))) === 0)
          return ip.execStmts(clause.Then, io, scope, st);
        clause = clause.Else;
      }
      return 0;
    }
    case 'WhileClause': {
      let status = 0;
      for (let i = 0; ; i++) {
        if (i >= ip.maxLoop) throw new TrustError('SHELL_LIMIT', `adf_shell: loop ran more than ${ip.maxLoop} times`);
        const c = await asCondition(st, () => ip.execStmts(cmd.Cond, io, scope, st));
        if (cmd.Until ? c === 0 : c !== 0) break;
        const body = await loopBody(() => ip.execStmts(cmd.Do, io, scope, st));
        if (body === 'break') break;
        status = typeof body === 'number' ? body : 0;
      }
      return status;
    }
    case 'ForClause': {
      if (cmd.Loop.type !== 'WordIter' || cmd.Select)
        throw new TrustError(
          'SHELL_UNSUPPORTED',
          `adf_shell: unsupported syntax: ${
            cmd.Select ? 'select loops' : constructName(cmd.Loop.type === 'Unsupported' ? cmd.Loop.name : 'CStyleLoop')
          }`,
        );
      const loop = cmd.Loop;
      const subst = ip.subst(io, scope, st);
      scope.substRefused = undefined;
      const items: string[] = [];
      if (loop.Items.length === 0) items.push(...scope.positional);
      const glob = ip.glob(st);
      for (const w of loop.Items) items.push(...(await expandFields(w, scope, ip.syntax, subst, glob)));
      const refused = refusedSubst(io, scope);
      if (refused !== undefined) return refused;
      if (items.length > ip.maxLoop)
        throw new TrustError('SHELL_LIMIT', `adf_shell: loop ran more than ${ip.maxLoop} times`);
      let status = 0;
      for (const item of items) {
        scope.arrays.delete(loop.Name.Value);
        scope.vars.set(loop.Name.Value, item);
        const body = await loopBody(() => ip.execStmts(cmd.Do, io, scope, st));
        if (body === 'break') break;
        status = typeof body === 'number' ? body : 0;
      }
      return status;
    }
    case 'CaseClause': {
      const subst = ip.subst(io, scope, st);
      scope.substRefused = undefined;
      const value = await expandString(cmd.Word, scope, ip.syntax, subst);
      const refused = refusedSubst(io, scope);
      if (refused !== undefined) return refused;
      // `;;` ends the case, `;&` runs the next item's body without testing it, `;;&` goes on
      // testing the items after this one (bash semantics for both).
      let status = 0;
      let fallInto = false;
      for (const item of cmd.Items) {
        let hit = fallInto;
        for (const p of item.Patterns) {
          if (hit) break;
          hit = matchCasePattern(value, await expandPattern(p, scope, ip.syntax, subst));
        }
        fallInto = false;
        if (!hit) continue;
        status = await ip.execStmts(item.Stmts, io, scope, st);
        const op = ip.syntax.ops.caseOp.get(item.Op);
        if (op === ';&') fallInto = true;
        else if (op !== ';;&') return status;
      }
      return status;
    }
    case 'TestClause':
      return evalTestClause(ip, cmd, io, scope, st);
    case 'DeclClause': {
      const subst = ip.subst(io, scope, st);
      const variant = cmd.Variant?.Value ?? 'declare';
      const frame = variant === 'local' ? st.locals[st.locals.length - 1] : undefined;
      for (const a of cmd.Args) {
        if (!a.Name) {
          const flag = a.Value?.Parts.map((p) => (p.type === 'Lit' ? p.Value : '')).join('') ?? '';
          if (flag === '--help') {
            io.out.write(`${variant}: ${BUILTIN_SUMMARIES[variant] ?? 'set variables'}\n`);
            return 0;
          }
          if (/^-[a-zA-Z]*A/.test(flag))
            throw new TrustError(
              'SHELL_UNSUPPORTED',
              `adf_shell: unsupported syntax: associative arrays (${variant} -A)`,
            );
          continue;
        }
        const name = a.Name.Value;
        if (frame && !frame.has(name)) frame.set(name, { value: scope.vars.get(name), array: scope.arrays.get(name) });
        if (a.Array || a.Index) {
          (await prepareAssign(ip, a, scope, subst))();
          continue;
        }
        if (a.Naked) {
          if (frame) {
            scope.vars.delete(name);
            scope.arrays.delete(name);
          }
          continue;
        }
        const value = a.Value ? await expandString(a.Value, scope, ip.syntax, subst) : '';
        scope.arrays.delete(name);
        scope.vars.set(name, value);
      }
      st.trace.push({ command: variant, tools: [], outcome: 'ran' });
      return 0;
    }
    case 'CallExpr':
      throw new TrustError('SHELL_INTERNAL', 'adf_shell: simple command reached the compound runner');
    default:
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported syntax: ${constructName(cmd.name)}`, {
        hint:
          'supported: commands, pipelines, && ||, ;, if, while/until, for-in, case, functions, { }, ( ), $(…), ' +
          'here-docs, arrays',
      });
  }
}
