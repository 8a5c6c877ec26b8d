import { TrustError } from '@trust/core';
import type { ArithmExpr, Word } from './shell-ast.js';
import { constructName } from './shell-ast.js';
import type { ShellSyntax } from './shell-syntax.js';
import type { ExpandScope } from './shell-state.js';

const INT = /^-?[0-9]+$/;

/**
 * Evaluates `$(( … ))` over integers: + - * / % ** << >> & | ^, comparisons, && ||, unary
 * - + ! ~, parentheses, and variables by bare name (a name holding another name is followed,
 * at most 8 deep). Assignment operators (`=`, `+=`, `++`) are not supported and say so.
 */
export async function arith(
  x: ArithmExpr,
  scope: ExpandScope,
  syntax: ShellSyntax,
  word: (w: Word) => Promise<string>,
): Promise<number> {
  switch (x.type) {
    case 'Word':
      return operand((await word(x)).trim(), scope, 0);
    case 'ParenArithm':
      return arith(x.X, scope, syntax, word);
    case 'UnaryArithm': {
      const op = syntax.ops.arithUnary.get(x.Op);
      const v = await arith(x.X, scope, syntax, word);
      switch (op) {
        case '-':
          return -v;
        case '+':
          return v;
        case '!':
          return v === 0 ? 1 : 0;
        case '~':
          return ~v;
      }
      throw new TrustError('SHELL_UNSUPPORTED', 'adf_shell: unsupported syntax: ++ / -- in arithmetic; use x=$((x+1))');
    }
    case 'BinaryArithm': {
      const op = syntax.ops.arith.get(x.Op);
      if (op === '&&')
        return (await arith(x.X, scope, syntax, word)) !== 0 && (await arith(x.Y, scope, syntax, word)) !== 0 ? 1 : 0;
      if (op === '||')
        return (await arith(x.X, scope, syntax, word)) !== 0 || (await arith(x.Y, scope, syntax, word)) !== 0 ? 1 : 0;
      const a = await arith(x.X, scope, syntax, word);
      const b = await arith(x.Y, scope, syntax, word);
      switch (op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          if (b === 0) throw new TrustError('SHELL_ARITH', 'adf_shell: division by 0');
          return Math.trunc(a / b);
        case '%':
          if (b === 0) throw new TrustError('SHELL_ARITH', 'adf_shell: division by 0');
          return a % b;
        case '**':
          if (b < 0) throw new TrustError('SHELL_ARITH', 'adf_shell: exponent less than 0');
          return a ** b;
        case '<<':
          return a << b;
        case '>>':
          return a >> b;
        case '&':
          return a & b;
        case '|':
          return a | b;
        case '^':
          return a ^ b;
        case '==':
          return a === b ? 1 : 0;
        case '!=':
          return a !== b ? 1 : 0;
        case '<':
          return a < b ? 1 : 0;
        case '>':
          return a > b ? 1 : 0;
        case '<=':
          return a <= b ? 1 : 0;
        case '>=':
          return a >= b ? 1 : 0;
      }
      throw new TrustError(
        'SHELL_UNSUPPORTED',
        'adf_shell: unsupported syntax: assignment or comma in arithmetic; use x=$((…))',
      );
    }
    default:
      throw new TrustError(
        'SHELL_UNSUPPORTED',
        `adf_shell: unsupported syntax in arithmetic: ${constructName(x.name)}`,
      );
  }
}

function operand(s: string, scope: ExpandScope, depth: number): number {
  if (s === '') return 0;
  if (INT.test(s)) return Number(s);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s, 16);
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && depth < 8)
    return operand((scope.arrays.get(s)?.[0] ?? scope.vars.get(s) ?? '').trim(), scope, depth + 1);
  throw new TrustError('SHELL_ARITH', `adf_shell: ${s}: syntax error in arithmetic expression`);
}
