// mvdan-sh ships no types; these are the few functions of its `syntax` package the shell calls.
// Its values are Go data seen through GopherJS, so they stay `unknown` until shell-syntax.ts
// copies them into the typed AST of shell-ast.ts.
declare module 'mvdan-sh' {
  /** A parser made by `NewParser`; `Parse` returns a `*syntax.File` (or throws a Go error). */
  export interface GoParser {
    Parse(source: string, name: string): unknown;
  }
  /** The functions and constants of mvdan/sh's `syntax` package that the shell uses. */
  export interface GoSyntax {
    NewParser(...options: unknown[]): GoParser;
    KeepComments(keep: boolean): unknown;
    Variant(lang: unknown): unknown;
    readonly LangBash: unknown;
    /** The Go type name of a node, e.g. "CallExpr". */
    NodeType(node: unknown): string;
    /** Splits a word's `{a,b}` / `{1..3}` literals into BraceExp parts. */
    SplitBraces(word: unknown): unknown;
  }
  const sh: { readonly syntax: GoSyntax };
  export default sh;
}
