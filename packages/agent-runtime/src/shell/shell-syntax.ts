import sh from 'mvdan-sh';
import type { GoSyntax } from 'mvdan-sh';
import { TrustError } from '@trust/core';
import type { Command, File, Stmt, WordPart } from './shell-ast.js';

/**
 * The shell parser: mvdan/sh (the parser behind shfmt) compiled to JavaScript. It yields a full
 * typed AST; the interpreter walks that AST and never builds a command string for a host shell.
 *
 * Operator tokens are Go enum numbers; instead of hard-coding them, {@link createShellSyntax}
 * learns them by parsing one sample of each operator, so a parser upgrade cannot silently swap
 * `|` for `&&`.
 */
// The parser's own output is untyped Go data seen through GopherJS; `GoStruct` marks where we
// hold one. It never leaves this file: `parse` returns the typed plain AST of shell-ast.ts.
type GoStruct = { readonly [field: string]: unknown };

/** Operator tables learned from the parser. */
export interface ShellOps {
  readonly binary: ReadonlyMap<number, '&&' | '||' | '|' | '|&'>;
  readonly redirect: ReadonlyMap<number, string>;
  readonly paramExp: ReadonlyMap<number, string>;
  readonly arith: ReadonlyMap<number, string>;
  readonly arithUnary: ReadonlyMap<number, string>;
  /** `[[ … ]]` operators. */
  readonly testUnary: ReadonlyMap<number, string>;
  readonly testBinary: ReadonlyMap<number, string>;
  /** `case` item terminators. */
  readonly caseOp: ReadonlyMap<number, ';;' | ';&' | ';;&'>;
}

/** A parser bound to its operator tables. */
export interface ShellSyntax {
  readonly ops: ShellOps;
  /** Parses a script; throws TrustError SHELL_SYNTAX with the parser's message. */
  parse(source: string): File;
}

/** Creates a parser and learns its operator numbers. */
export function createShellSyntax(): ShellSyntax {
  const syntax = sh.syntax;
  const parser = syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash));
  const parse = (source: string): File => {
    try {
      return toPlain(syntax, parser.Parse(source, 'script'), false) as File;
    } catch (e) {
      const message =
        typeof (e as { Error?: () => string })?.Error === 'function'
          ? (e as { Error: () => string }).Error()
          : String((e as { message?: string })?.message ?? e);
      throw new TrustError('SHELL_SYNTAX', `shell syntax error: ${message}`, {
        hint: 'check quoting and brackets; the shell follows bash syntax',
      });
    }
  };
  const sample = samplesOf(parse);
  const binary = new Map<number, '&&' | '||' | '|' | '|&'>();
  for (const op of ['&&', '||', '|', '|&'] as const) binary.set(sample.command(`a ${op} b`, 'BinaryCmd').Op, op);
  const redirect = new Map<number, string>();
  const redirSamples: Array<[string, string]> = [
    ['>', 'a > f'],
    ['>>', 'a >> f'],
    ['<', 'a < f'],
    ['<<', 'a <<E\nx\nE\n'],
    ['<<-', 'a <<-E\nx\nE\n'],
    ['<<<', 'a <<< w'],
    ['>&', 'a >&2'],
    ['<&', 'a <&0'],
    ['&>', 'a &> f'],
    ['&>>', 'a &>> f'],
    ['<>', 'a <> f'],
    ['>|', 'a >| f'],
  ];
  for (const [op, src] of redirSamples) redirect.set(sample.redirectOp(src), op);
  const paramExp = new Map<number, string>();
  for (const op of [':-', '-', ':=', '=', ':+', '+', ':?', '?', '#', '##', '%', '%%'])
    paramExp.set(sample.part(`echo \${a${op}b}`, 'ParamExp').Exp!.Op, op);
  const arith = new Map<number, string>();
  for (const op of [
    '+',
    '-',
    '*',
    '/',
    '%',
    '**',
    '<<',
    '>>',
    '&',
    '|',
    '^',
    '==',
    '!=',
    '<',
    '>',
    '<=',
    '>=',
    '&&',
    '||',
  ])
    arith.set(ofType(sample.part(`echo $((1${op}2))`, 'ArithmExp').X, 'BinaryArithm').Op, op);
  const arithUnary = new Map<number, string>();
  for (const op of ['-', '+', '!', '~'])
    arithUnary.set(ofType(sample.part(`echo $((${op}1))`, 'ArithmExp').X, 'UnaryArithm').Op, op);
  const testUnary = new Map<number, string>();
  for (const op of ['-n', '-z', '-e', '-f', '-s', '-d', '!'])
    testUnary.set(ofType(sample.command(`[[ ${op} x ]]`, 'TestClause').X, 'UnaryTest').Op, op);
  const testBinary = new Map<number, string>();
  for (const op of ['==', '=', '!=', '=~', '<', '>', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '&&', '||'])
    testBinary.set(ofType(sample.command(`[[ a ${op} b ]]`, 'TestClause').X, 'BinaryTest').Op, op);
  const caseOp = new Map<number, ';;' | ';&' | ';;&'>();
  for (const op of [';;', ';&', ';;&'] as const)
    caseOp.set(ofType(sample.command(`case x in x) a${op} esac`, 'CaseClause').Items[0], 'CaseItem').Op, op);
  const lines = parse('a\n\n  b').Stmts.map((s) => s.Line);
  if (lines[0] !== 1 || lines[1] !== 3)
    throw new TrustError('SHELL_INTERNAL', `shell parser: statement lines read as ${lines.join(',')}, not 1,3`);
  return { ops: { binary, redirect, paramExp, arith, arithUnary, testUnary, testBinary, caseOp }, parse };
}

/** `node` if it has the given type; the parser changed shape otherwise. */
function ofType<N extends { readonly type: string }, T extends N['type']>(
  node: N | null | undefined,
  type: T,
): Extract<N, { readonly type: T }> {
  if (node?.type !== type)
    throw new TrustError('SHELL_INTERNAL', `shell parser: expected a ${type} node, got ${node?.type ?? 'nothing'}`);
  return node as Extract<N, { readonly type: T }>;
}

/** Reads the nodes of one-line samples, to learn the parser's operator numbers. */
function samplesOf(parse: (source: string) => File) {
  const stmt = (source: string): Stmt => {
    const s = parse(source).Stmts[0];
    if (!s) throw new TrustError('SHELL_INTERNAL', `shell parser: no statement in ${JSON.stringify(source)}`);
    return s;
  };
  const command = <T extends Command['type']>(source: string, type: T) => ofType(stmt(source).Cmd, type);
  return {
    command,
    redirectOp: (source: string): number => ofType(stmt(source).Redirs[0], 'Redirect').Op,
    /** The first part of the second word of `echo …`. */
    part: <T extends WordPart['type']>(source: string, type: T) =>
      ofType(command(source, 'CallExpr').Args[1]?.Parts[0], type),
  };
}

/**
 * The fields the interpreter reads, per node type. Reading a GopherJS struct is slow (every
 * slice access converts it), so the tree is copied once into plain objects right after parsing;
 * a node type not listed keeps only its `type`, and the interpreter reports it as unsupported.
 */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  File: ['Stmts'],
  Stmt: ['Cmd', 'Redirs', 'Negated', 'Background', 'Coprocess'],
  Redirect: ['Op', 'N', 'Word', 'Hdoc'],
  CallExpr: ['Assigns', 'Args'],
  Assign: ['Name', 'Value', 'Naked', 'Append', 'Index', 'Array'],
  ArrayExpr: ['Elems'],
  ArrayElem: ['Index', 'Value'],
  BraceExp: ['Sequence', 'Elems'],
  Word: ['Parts'],
  Lit: ['Value'],
  SglQuoted: ['Value', 'Dollar'],
  DblQuoted: ['Parts'],
  ParamExp: ['Param', 'Length', 'Short', 'Exp', 'Repl'],
  CmdSubst: ['Stmts'],
  ArithmExp: ['X'],
  BinaryArithm: ['Op', 'X', 'Y'],
  ParenArithm: ['X'],
  UnaryArithm: ['Op', 'X'],
  BinaryCmd: ['Op', 'X', 'Y'],
  Block: ['Stmts'],
  Subshell: ['Stmts'],
  FuncDecl: ['Name', 'Body'],
  IfClause: ['Cond', 'Then', 'Else'],
  WhileClause: ['Cond', 'Do', 'Until'],
  ForClause: ['Loop', 'Do', 'Select'],
  WordIter: ['Name', 'Items'],
  CaseClause: ['Word', 'Items'],
  CaseItem: ['Op', 'Patterns', 'Stmts'],
  DeclClause: ['Variant', 'Args'],
  TestClause: ['X'],
  UnaryTest: ['Op', 'X'],
  BinaryTest: ['Op', 'X', 'Y'],
  ParenTest: ['X'],
};

/**
 * A Go node's type name. GopherJS tags each wrapper with `$type` ("…syntax.*CallExpr"); reading
 * it costs nanoseconds, where `syntax.NodeType` converts the node and costs ~60 µs per call, which
 * made copying the tree most of a run. NodeType stays the fallback.
 */
function nodeTypeOf(syntax: GoSyntax, node: GoStruct): string {
  const tag = node.$type;
  if (typeof tag === 'string') {
    const i = tag.lastIndexOf('.');
    return tag.slice(i + 1).replace(/^\*/, '');
  }
  try {
    return syntax.NodeType(node);
  } catch {
    return '';
  }
}

/**
 * The line a statement starts on. `Pos().Line()` converts the value and costs ~70 µs; the raw
 * position packs line and column in one word (line above the low 14 bits), read in nanoseconds.
 * `createShellSyntax` checks this reading against a sample, so a parser upgrade cannot skew it.
 */
function stmtLine(node: GoStruct): number {
  const raw = (node as { __internal_object__?: { Position?: { lineCol?: unknown } } }).__internal_object__;
  const lineCol = raw?.Position?.lineCol;
  return typeof lineCol === 'number' ? lineCol >>> 14 : 0;
}

/** A Go struct's field that holds a struct (or nothing). */
const struct = (node: GoStruct, field: string): GoStruct | undefined => {
  const v = node[field];
  return typeof v === 'object' && v !== null ? (v as GoStruct) : undefined;
};

/**
 * Copies a Go node into a plain object. `braces` marks command words (arguments and for-in
 * items): only there does bash expand `{a,b}` and `{1..3}`, so only there is the word split.
 */
function toPlain(syntax: GoSyntax, value: unknown, braces: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((n) => toPlain(syntax, n, braces));
  const node = value as GoStruct;
  const type = nodeTypeOf(syntax, node);
  if (!(type in FIELDS) && type !== 'ParamExp') return { type: 'Unsupported', name: type || 'unknown' };
  const out: Record<string, unknown> = { type };
  if (type === 'ParamExp') {
    out.Param = toPlain(syntax, node.Param, false);
    out.Length = node.Length === true;
    out.Short = node.Short === true;
    out.Index = toPlain(syntax, node.Index, false);
    const exp = struct(node, 'Exp');
    out.Exp = exp ? { Op: exp.Op, Word: toPlain(syntax, exp.Word, false) } : null;
    const repl = struct(node, 'Repl');
    out.Repl = repl
      ? { All: repl.All === true, Orig: toPlain(syntax, repl.Orig, false), With: toPlain(syntax, repl.With, false) }
      : null;
    if (node.Slice || node.Names || node.Excl)
      return {
        type: 'Unsupported',
        name: node.Slice ? 'substring expansion ${x:off:len}' : 'indirect or name expansion ${!x}',
      };
    return out;
  }
  if (type === 'Stmt') out.Line = stmtLine(node);
  const wordList = type === 'CallExpr' || type === 'WordIter';
  for (const f of FIELDS[type] ?? []) {
    const v = node[f];
    out[f] = typeof v === 'object' && v !== null ? toPlain(syntax, v, wordList && (f === 'Args' || f === 'Items')) : v;
  }
  // Brace expansion applies to command words only; the Go word is re-split only when a literal
  // part holds a `{` (asking the Go side about every word costs more than the whole run).
  if (
    type === 'Word' &&
    braces &&
    (out.Parts as Array<{ type: string; Value?: string }>).some((p) => p.type === 'Lit' && p.Value!.includes('{'))
  )
    return toPlain(syntax, syntax.SplitBraces(node), false);
  return out;
}
