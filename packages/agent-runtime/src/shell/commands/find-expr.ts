import { matchCasePattern } from '../shell-expand.js';

/** A `find` expression: tests, operators and actions, as GNU find reads them. */
export type FindExpr =
  | { readonly kind: 'and' | 'or'; readonly x: FindExpr; readonly y: FindExpr }
  | { readonly kind: 'not'; readonly x: FindExpr }
  | { readonly kind: 'test'; readonly test: (e: FindEntry) => boolean }
  | { readonly kind: 'print' | 'delete' }
  | { readonly kind: 'exec'; readonly argv: readonly string[]; readonly batch: boolean };

/** One file or directory `find` visits. */
export interface FindEntry {
  /** The path as printed (`./dir/a.txt`). */
  readonly shown: string;
  /** The store path. */
  readonly path: string;
  readonly dir: boolean;
  readonly depth: number;
  /** Whether the directory holds nothing (files always false: sizes are not checked). */
  readonly empty: boolean;
}

/** A parsed command line of `find`. */
export interface FindPlan {
  readonly roots: readonly string[];
  readonly expr: FindExpr;
  readonly maxdepth?: number;
  readonly mindepth?: number;
  /** The expression has an action; otherwise every match is printed. */
  readonly acts: boolean;
  readonly deletes: boolean;
  readonly execs: ReadonlyArray<readonly string[]>;
}

/** A `find` command line it cannot run, with GNU's wording and status. */
export class FindSyntaxError extends Error {}

const WITH_VALUE = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-regex', '-iregex', '-type']);

/**
 * Parses `find [ROOT…] [EXPR]`: `( )`, `!`/`-not`, `-a`/`-and` (or nothing), `-o`/`-or`; tests
 * -name -iname -path -ipath -wholename -regex -iregex -type f|d -empty -true -false; actions
 * -print -delete `-exec CMD … ;` and `-exec CMD … {} +`; -maxdepth/-mindepth N. Anything else is
 * refused by name.
 *
 * @example
 * ```ts
 * const plan = planFind(['.', '(', '-name', '*.md', '-o', '-name', '*.txt', ')', '-exec', 'wc', '-l', '{}', '+']);
 * ```
 */
export function planFind(argv: readonly string[]): FindPlan {
  let i = 0;
  const roots: string[] = [];
  for (; i < argv.length && !argv[i]!.startsWith('-') && argv[i] !== '(' && argv[i] !== '!'; i++) roots.push(argv[i]!);
  const state = { maxdepth: undefined as number | undefined, mindepth: undefined as number | undefined };
  let acts = false;
  let deletes = false;
  const execs: Array<readonly string[]> = [];
  const peek = () => argv[i];

  const primary = (): FindExpr => {
    const a = argv[i++];
    if (a === undefined) throw new FindSyntaxError('find: expected an expression');
    if (a === '(') {
      const e = or();
      if (argv[i++] !== ')') throw new FindSyntaxError("find: invalid expression; I was expecting to find a ')'");
      return e;
    }
    if (a === '!' || a === '-not') return { kind: 'not', x: primary() };
    if (a === '-maxdepth' || a === '-mindepth') {
      const v = argv[i++];
      if (v === undefined || !/^[0-9]+$/.test(v))
        throw new FindSyntaxError(`find: Expected a positive decimal integer argument to ${a}, but got '${v ?? ''}'`);
      state[a === '-maxdepth' ? 'maxdepth' : 'mindepth'] = Number(v);
      return { kind: 'test', test: () => true };
    }
    if (a === '-print') {
      acts = true;
      return { kind: 'print' };
    }
    if (a === '-delete') {
      acts = true;
      deletes = true;
      return { kind: 'delete' };
    }
    if (a === '-true' || a === '-false') return { kind: 'test', test: () => a === '-true' };
    if (a === '-empty') return { kind: 'test', test: (e) => e.empty };
    if (a === '-exec') {
      const start = i;
      while (i < argv.length && argv[i] !== ';' && !(argv[i] === '+' && argv[i - 1] === '{}')) i++;
      if (i >= argv.length || i === start) throw new FindSyntaxError("find: missing argument to `-exec'");
      const batch = argv[i] === '+';
      const cmd = argv.slice(start, i++);
      acts = true;
      execs.push(cmd);
      return { kind: 'exec', argv: cmd, batch };
    }
    if (WITH_VALUE.has(a)) {
      const v = argv[i++];
      if (v === undefined) throw new FindSyntaxError(`find: missing argument to \`${a}'`);
      return { kind: 'test', test: valueTest(a, v) };
    }
    throw new FindSyntaxError(`find: unknown predicate \`${a}'`);
  };
  const and = (): FindExpr => {
    let x = primary();
    for (;;) {
      const t = peek();
      if (t === '-a' || t === '-and') i++;
      else if (t === undefined || t === '-o' || t === '-or' || t === ')') return x;
      x = { kind: 'and', x, y: primary() };
    }
  };
  const or = (): FindExpr => {
    let x = and();
    while (peek() === '-o' || peek() === '-or') {
      i++;
      x = { kind: 'or', x, y: and() };
    }
    return x;
  };
  const expr: FindExpr = i < argv.length ? or() : { kind: 'test', test: () => true };
  if (i < argv.length) throw new FindSyntaxError(`find: paths must precede expression: \`${argv[i]}'`);
  return {
    roots: roots.length ? roots : ['.'],
    expr,
    acts,
    deletes,
    execs,
    ...(state.maxdepth !== undefined ? { maxdepth: state.maxdepth } : {}),
    ...(state.mindepth !== undefined ? { mindepth: state.mindepth } : {}),
  };
}

function valueTest(a: string, v: string): (e: FindEntry) => boolean {
  const leaf = (e: FindEntry) => e.shown.replace(/\/+$/, '').split('/').pop() ?? e.shown;
  switch (a) {
    case '-name':
      return (e) => matchCasePattern(leaf(e), v);
    case '-iname':
      return (e) => matchCasePattern(leaf(e).toLowerCase(), v.toLowerCase());
    case '-path':
    case '-wholename':
      return (e) => matchCasePattern(e.shown, v);
    case '-ipath':
      return (e) => matchCasePattern(e.shown.toLowerCase(), v.toLowerCase());
    case '-type':
      if (v !== 'f' && v !== 'd') throw new FindSyntaxError(`find: -type ${v} is not supported (f or d)`);
      return (e) => e.dir === (v === 'd');
    default: {
      let re: RegExp;
      try {
        re = new RegExp(`^(?:${v})$`, a === '-iregex' ? 'si' : 's');
      } catch {
        throw new FindSyntaxError(`find: invalid regular expression \`${v}'`);
      }
      return (e) => re.test(e.shown);
    }
  }
}
