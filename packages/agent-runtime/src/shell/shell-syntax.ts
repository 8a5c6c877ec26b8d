import sh from 'mvdan-sh';
import { TrustError } from '@trust/core';

/**
 * The shell parser: mvdan/sh (the parser behind shfmt) compiled to JavaScript. It yields a full
 * typed AST; the interpreter walks that AST and never builds a command string for a host shell.
 *
 * Operator tokens are Go enum numbers; instead of hard-coding them, {@link createShellSyntax}
 * learns them by parsing one sample of each operator, so a parser upgrade cannot silently swap
 * `|` for `&&`.
 */
// The AST is untyped Go data; `Node` marks where we hold one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Node = any;

/** Operator tables learned from the parser. */
export interface ShellOps {
  readonly binary: ReadonlyMap<number, '&&' | '||' | '|' | '|&'>;
  readonly redirect: ReadonlyMap<number, string>;
  readonly paramExp: ReadonlyMap<number, string>;
  readonly arith: ReadonlyMap<number, string>;
  /** `[[ … ]]` operators. */
  readonly testUnary: ReadonlyMap<number, string>;
  readonly testBinary: ReadonlyMap<number, string>;
}

/** A parser bound to its operator tables. */
export interface ShellSyntax {
  readonly ops: ShellOps;
  /** Parses a script; throws TrustError SHELL_SYNTAX with the parser's message. */
  parse(source: string): Node;
  /** The AST node type name, e.g. `CallExpr`. */
  nodeType(node: Node): string;
}

/** Creates a parser and learns its operator numbers. */
export function createShellSyntax(): ShellSyntax {
  const syntax = sh.syntax;
  const parser = syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash));
  const parse = (source: string): Node => {
    try {
      return toPlain(syntax, parser.Parse(source, 'script'));
    } catch (e) {
      const message = typeof (e as { Error?: () => string })?.Error === 'function' ? (e as { Error: () => string }).Error() : String((e as { message?: string })?.message ?? e);
      throw new TrustError('SHELL_SYNTAX', `shell syntax error: ${message}`, { hint: 'check quoting and brackets; the shell follows bash syntax' });
    }
  };
  const binary = new Map<number, '&&' | '||' | '|' | '|&'>();
  for (const op of ['&&', '||', '|', '|&'] as const) binary.set(parse(`a ${op} b`).Stmts[0].Cmd.Op, op);
  const redirect = new Map<number, string>();
  const redirSamples: Array<[string, string]> = [['>', 'a > f'], ['>>', 'a >> f'], ['<', 'a < f'], ['<<', 'a <<E\nx\nE\n'], ['<<-', 'a <<-E\nx\nE\n'], ['<<<', 'a <<< w'], ['>&', 'a >&2'], ['<&', 'a <&0'], ['&>', 'a &> f'], ['&>>', 'a &>> f'], ['<>', 'a <> f'], ['>|', 'a >| f']];
  for (const [op, src] of redirSamples) redirect.set(parse(src).Stmts[0].Redirs[0].Op, op);
  const paramExp = new Map<number, string>();
  for (const op of [':-', '-', ':=', '=', ':+', '+', ':?', '?', '#', '##', '%', '%%']) paramExp.set(parse(`echo \${a${op}b}`).Stmts[0].Cmd.Args[1].Parts[0].Exp.Op, op);
  const arith = new Map<number, string>();
  for (const op of ['+', '-', '*', '/', '%', '==', '!=', '<', '>', '<=', '>=', '&&', '||']) arith.set(parse(`echo $((1${op}2))`).Stmts[0].Cmd.Args[1].Parts[0].X.Op, op);
  const testUnary = new Map<number, string>();
  for (const op of ['-n', '-z', '-e', '-f', '-s', '-d', '!']) testUnary.set(parse(`[[ ${op} x ]]`).Stmts[0].Cmd.X.Op, op);
  const testBinary = new Map<number, string>();
  for (const op of ['==', '=', '!=', '=~', '<', '>', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '&&', '||']) testBinary.set(parse(`[[ a ${op} b ]]`).Stmts[0].Cmd.X.Op, op);
  return { ops: { binary, redirect, paramExp, arith, testUnary, testBinary }, parse, nodeType: (n: Node) => (n?.type as string) ?? 'nil' };
}

/**
 * The fields the interpreter reads, per node type. Reading a GopherJS struct is slow (every
 * slice access converts it), so the tree is copied once into plain objects right after parsing;
 * a node type not listed keeps only its `type`, and the interpreter reports it as unsupported.
 */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  File: ['Stmts'], Stmt: ['Cmd', 'Redirs', 'Negated', 'Background'], Redirect: ['Op', 'N', 'Word', 'Hdoc'],
  CallExpr: ['Assigns', 'Args'], Assign: ['Name', 'Value', 'Naked'], Word: ['Parts'], Lit: ['Value'],
  SglQuoted: ['Value', 'Dollar'], DblQuoted: ['Parts'], ParamExp: ['Param', 'Length', 'Short', 'Exp', 'Repl'],
  CmdSubst: ['Stmts'], ArithmExp: ['X'], BinaryArithm: ['Op', 'X', 'Y'], ParenArithm: ['X'], UnaryArithm: ['Op', 'X'],
  BinaryCmd: ['Op', 'X', 'Y'], Block: ['Stmts'], Subshell: ['Stmts'], FuncDecl: ['Name', 'Body'],
  IfClause: ['Cond', 'Then', 'Else'], WhileClause: ['Cond', 'Do', 'Until'], ForClause: ['Loop', 'Do'], WordIter: ['Name', 'Items'],
  CaseClause: ['Word', 'Items'], CaseItem: ['Patterns', 'Stmts'], DeclClause: ['Variant', 'Args'],
  TestClause: ['X'], UnaryTest: ['Op', 'X'], BinaryTest: ['Op', 'X', 'Y'], ParenTest: ['X'],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toPlain(syntax: any, node: Node): Node {
  if (node === null || node === undefined) return null;
  if (typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((n) => toPlain(syntax, n));
  let type: string;
  try { type = syntax.NodeType(node) as string; } catch { type = ''; }
  const out: Record<string, unknown> = { type };
  if (type === 'ParamExp') {
    out.Param = toPlain(syntax, node.Param);
    out.Length = node.Length === true;
    out.Short = node.Short === true;
    out.Exp = node.Exp ? { Op: node.Exp.Op, Word: toPlain(syntax, node.Exp.Word) } : null;
    out.Repl = node.Repl ? { All: node.Repl.All === true, Orig: toPlain(syntax, node.Repl.Orig), With: toPlain(syntax, node.Repl.With) } : null;
    return out;
  }
  for (const f of FIELDS[type] ?? []) {
    const v = node[f];
    out[f] = typeof v === 'object' && v !== null ? toPlain(syntax, v) : v;
  }
  return out;
}
