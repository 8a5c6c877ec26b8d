/**
 * The typed shell AST the interpreter walks: mvdan/sh's Go structs copied into plain objects
 * (see `toPlain` in shell-syntax.ts). Operators stay the parser's enum numbers; `ShellOps` maps
 * them. A node type the interpreter does not know becomes {@link Unsupported}, so it fails with
 * an error naming the construct instead of being half-run.
 */

export interface Lit {
  readonly type: 'Lit';
  readonly Value: string;
}
export interface SglQuoted {
  readonly type: 'SglQuoted';
  readonly Value: string;
  readonly Dollar: boolean;
}
export interface DblQuoted {
  readonly type: 'DblQuoted';
  readonly Parts: readonly WordPart[];
}
export interface ParamExp {
  readonly type: 'ParamExp';
  readonly Param: Lit | null;
  readonly Length: boolean;
  readonly Short: boolean;
  readonly Index: ArithmExpr | null;
  readonly Exp: { readonly Op: number; readonly Word: Word | null } | null;
  readonly Repl: { readonly All: boolean; readonly Orig: Word | null; readonly With: Word | null } | null;
}
export interface CmdSubst {
  readonly type: 'CmdSubst';
  readonly Stmts: readonly Stmt[];
}
export interface ArithmExp {
  readonly type: 'ArithmExp';
  readonly X: ArithmExpr;
}
/** `{a,b}` or `{1..3}` (Sequence), produced only for command words. */
export interface BraceExp {
  readonly type: 'BraceExp';
  readonly Sequence: boolean;
  readonly Elems: readonly Word[];
}
/** Any node type the interpreter does not implement; `name` is mvdan/sh's type name. */
export interface Unsupported {
  readonly type: 'Unsupported';
  readonly name: string;
}

export type WordPart = Lit | SglQuoted | DblQuoted | ParamExp | CmdSubst | ArithmExp | BraceExp | Unsupported;
export interface Word {
  readonly type: 'Word';
  readonly Parts: readonly WordPart[];
}

export interface BinaryArithm {
  readonly type: 'BinaryArithm';
  readonly Op: number;
  readonly X: ArithmExpr;
  readonly Y: ArithmExpr;
}
export interface UnaryArithm {
  readonly type: 'UnaryArithm';
  readonly Op: number;
  readonly X: ArithmExpr;
}
export interface ParenArithm {
  readonly type: 'ParenArithm';
  readonly X: ArithmExpr;
}
export type ArithmExpr = Word | BinaryArithm | UnaryArithm | ParenArithm | Unsupported;

export interface Redirect {
  readonly type: 'Redirect';
  readonly Op: number;
  readonly N: Lit | null;
  readonly Word: Word;
  readonly Hdoc: Word | null;
}
export interface ArrayElem {
  readonly type: 'ArrayElem';
  readonly Index: ArithmExpr | null;
  readonly Value: Word | null;
}
export interface ArrayExpr {
  readonly type: 'ArrayExpr';
  readonly Elems: readonly ArrayElem[];
}
export interface Assign {
  readonly type: 'Assign';
  readonly Name: Lit | null;
  readonly Value: Word | null;
  readonly Naked: boolean;
  readonly Append: boolean;
  readonly Index: ArithmExpr | null;
  readonly Array: ArrayExpr | null;
}

export interface Stmt {
  readonly type: 'Stmt';
  readonly Cmd: Command | null;
  readonly Redirs: readonly Redirect[];
  readonly Negated: boolean;
  readonly Background: boolean;
  readonly Coprocess: boolean;
  /** The line the statement starts on (1-based), for messages that say where. */
  readonly Line: number;
}
export interface CallExpr {
  readonly type: 'CallExpr';
  readonly Assigns: readonly Assign[];
  readonly Args: readonly Word[];
}
export interface BinaryCmd {
  readonly type: 'BinaryCmd';
  readonly Op: number;
  readonly X: Stmt;
  readonly Y: Stmt;
}
export interface Block {
  readonly type: 'Block';
  readonly Stmts: readonly Stmt[];
}
export interface Subshell {
  readonly type: 'Subshell';
  readonly Stmts: readonly Stmt[];
}
export interface FuncDecl {
  readonly type: 'FuncDecl';
  readonly Name: Lit;
  readonly Body: Stmt;
}
export interface IfClause {
  readonly type: 'IfClause';
  readonly Cond: readonly Stmt[];
  readonly Then: readonly Stmt[];
  readonly Else: IfClause | null;
}
export interface WhileClause {
  readonly type: 'WhileClause';
  readonly Cond: readonly Stmt[];
  readonly Do: readonly Stmt[];
  readonly Until: boolean;
}
export interface WordIter {
  readonly type: 'WordIter';
  readonly Name: Lit;
  readonly Items: readonly Word[];
}
export interface ForClause {
  readonly type: 'ForClause';
  readonly Loop: WordIter | Unsupported;
  readonly Do: readonly Stmt[];
  readonly Select: boolean;
}
export interface CaseItem {
  readonly type: 'CaseItem';
  readonly Patterns: readonly Word[];
  readonly Stmts: readonly Stmt[];
  /** The terminator: `;;`, `;&` (fall through) or `;;&` (test the next patterns), see ShellOps.caseOp. */
  readonly Op: number;
}
export interface CaseClause {
  readonly type: 'CaseClause';
  readonly Word: Word;
  readonly Items: readonly CaseItem[];
}
export interface DeclClause {
  readonly type: 'DeclClause';
  readonly Variant: Lit | null;
  readonly Args: readonly Assign[];
}
export interface UnaryTest {
  readonly type: 'UnaryTest';
  readonly Op: number;
  readonly X: TestExpr;
}
export interface BinaryTest {
  readonly type: 'BinaryTest';
  readonly Op: number;
  readonly X: TestExpr;
  readonly Y: TestExpr;
}
export interface ParenTest {
  readonly type: 'ParenTest';
  readonly X: TestExpr;
}
export type TestExpr = Word | UnaryTest | BinaryTest | ParenTest | Unsupported;
export interface TestClause {
  readonly type: 'TestClause';
  readonly X: TestExpr;
}

export type Command =
  | CallExpr
  | BinaryCmd
  | Block
  | Subshell
  | FuncDecl
  | IfClause
  | WhileClause
  | ForClause
  | CaseClause
  | DeclClause
  | TestClause
  | Unsupported;
export interface File {
  readonly type: 'File';
  readonly Stmts: readonly Stmt[];
}

/** What an unsupported construct is called in error messages. */
const CONSTRUCT_NAMES: Readonly<Record<string, string>> = {
  ProcSubst: 'process substitution <(…) / >(…)',
  ArithmCmd: 'arithmetic command ((…)); use x=$((…)) or [ ]',
  LetClause: 'let; use x=$((…))',
  CStyleLoop: 'C-style for loops; use for x in $(seq …)',
  CoprocClause: 'coproc',
  TimeClause: 'time',
  ExtGlob: 'extended globs',
  TestDecl: 'test declarations',
  WordIter: 'select loops',
};

/** A human name for an unsupported node type. */
export function constructName(nodeType: string): string {
  return CONSTRUCT_NAMES[nodeType] ?? nodeType;
}
