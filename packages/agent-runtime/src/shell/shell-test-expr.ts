import { TrustError } from '@trust/core';
import type { TestClause, TestExpr, Word } from './shell-ast.js';
import { constructName } from './shell-ast.js';
import { expandPattern, expandString, matchCasePattern } from './shell-expand.js';
import type { Interp } from './shell-interp.js';
import { ExpansionError } from './shell-state.js';
import type { ExpandScope, Io, RunState } from './shell-state.js';
import { EXIT_REJECTED } from './shell-types.js';
import { fileContent } from './file-content.js';
import { compareIntegers } from './integer-compare.js';

const FILE_TESTS = ['-e', '-f', '-s', '-d'];

/** `[[ … ]]`: file tests read through fs_read, so the clause is preflighted like a command. */
export async function evalTestClause(
  ip: Interp,
  cmd: TestClause,
  io: Io,
  scope: ExpandScope,
  st: RunState,
): Promise<number> {
  const tools = usesFileTest(ip, cmd.X) ? ['fs_read'] : [];
  st.commands += 1;
  const blocked = await ip.preflight('[[', tools, io, st);
  if (blocked !== 0) return blocked;
  scope.substRefused = undefined;
  try {
    const result = await evalTest(ip, cmd.X, scope, st, io);
    if (scope.substRefused !== undefined) {
      io.err.write('adf_shell: [[: a command substitution in it was refused\n');
      return scope.substRefused;
    }
    return result ? 0 : 1;
  } catch (e) {
    if (
      e instanceof TrustError &&
      (e.code === 'SHELL_LIMIT' || e.code === 'SHELL_ABORTED' || e.code === 'SHELL_UNSUPPORTED')
    )
      throw e;
    if (e instanceof ExpansionError || !(e instanceof Error)) throw e;
    io.err.write(`adf_shell: [[: ${e.message}\n`);
    return ip.isRejection(e) ? EXIT_REJECTED : 2;
  }
}

function usesFileTest(ip: Interp, x: TestExpr): boolean {
  if (x.type === 'UnaryTest')
    return FILE_TESTS.includes(ip.syntax.ops.testUnary.get(x.Op) ?? '') || usesFileTest(ip, x.X);
  if (x.type === 'BinaryTest') return usesFileTest(ip, x.X) || usesFileTest(ip, x.Y);
  if (x.type === 'ParenTest') return usesFileTest(ip, x.X);
  return false;
}

async function evalTest(ip: Interp, x: TestExpr, scope: ExpandScope, st: RunState, io: Io): Promise<boolean> {
  const subst = ip.subst(io, scope, st);
  const word = (w: TestExpr) => {
    if (w.type !== 'Word') throw new TrustError('SHELL_UNSUPPORTED', 'adf_shell: unsupported [[ ]] operand');
    return expandString(w as Word, scope, ip.syntax, subst);
  };
  switch (x.type) {
    case 'Word':
      return (await word(x)) !== '';
    case 'ParenTest':
      return evalTest(ip, x.X, scope, st, io);
    case 'UnaryTest': {
      const op = ip.syntax.ops.testUnary.get(x.Op);
      if (op === '!') return !(await evalTest(ip, x.X, scope, st, io));
      const v = await word(x.X);
      if (op === '-n') return v !== '';
      if (op === '-z') return v === '';
      if (op === '-e' || op === '-f' || op === '-s') {
        try {
          const c = fileContent(await ip.call('fs_read', { path: v }));
          return op !== '-s' || c.length > 0;
        } catch (e) {
          if (ip.isRejection(e)) throw e;
          return false;
        }
      }
      if (op === '-d') return false; // the virtual file store has no directories
      throw new TrustError('SHELL_UNSUPPORTED', 'adf_shell: unsupported syntax: this [[ ]] unary operator');
    }
    case 'BinaryTest': {
      const op = ip.syntax.ops.testBinary.get(x.Op);
      if (op === '&&') return (await evalTest(ip, x.X, scope, st, io)) && evalTest(ip, x.Y, scope, st, io);
      if (op === '||') return (await evalTest(ip, x.X, scope, st, io)) || evalTest(ip, x.Y, scope, st, io);
      const a = await word(x.X);
      const patternOp = op === '==' || op === '=' || op === '!=';
      const b = patternOp && x.Y.type === 'Word' ? await expandPattern(x.Y, scope, ip.syntax, subst) : await word(x.Y);
      const numeric = compareIntegers(
        op,
        a,
        b,
        (s) => new TrustError('SHELL_ARITH', `integer expression expected: ${s}`),
      );
      if (numeric !== undefined) return numeric;
      switch (op) {
        case '==':
        case '=':
          return matchCasePattern(a, b);
        case '!=':
          return !matchCasePattern(a, b);
        case '=~':
          try {
            return new RegExp(b).test(a);
          } catch {
            throw new TrustError('SHELL_SYNTAX', `invalid regular expression ${JSON.stringify(b)}`);
          }
        case '<':
          return a < b;
        case '>':
          return a > b;
      }
      throw new TrustError('SHELL_UNSUPPORTED', 'adf_shell: unsupported syntax: this [[ ]] binary operator');
    }
    default:
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported syntax in [[ ]]: ${constructName(x.name)}`);
  }
}
