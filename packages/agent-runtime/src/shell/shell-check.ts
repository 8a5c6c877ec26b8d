import { isDenied } from '@trust/core';
import type { File, Redirect, Word } from './shell-ast.js';
import { constructName } from './shell-ast.js';
import { BUILTIN_SUMMARIES } from './shell-builtins.js';
import type { ShellSyntax } from './shell-syntax.js';
import { DYNAMIC_WORD, EXIT_DENIED, EXIT_REJECTED } from './shell-types.js';
import type { ShellCommand, ShellGate, ShellTraceEntry } from './shell-types.js';

/** What the whole-script check needs from the shell. */
export interface CheckConfig {
  readonly syntax: ShellSyntax;
  readonly commands: ReadonlyMap<string, ShellCommand>;
  readonly gate: ShellGate;
  /** Deny codes that mean "a human rejected the approval" (130). */
  readonly rejection: ReadonlySet<string>;
  /** Nesting limit for literal `sh -c` / `eval` scripts looked into. */
  readonly maxDepth: number;
}

/** The outcome of checking a script before any of it runs. */
export type ScriptCheck =
  | { readonly kind: 'ok' }
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly message: string;
      readonly trace: ShellTraceEntry;
    };

/** One command the script can run, with the tools its argv resolves to. */
interface Use {
  readonly where: string;
  readonly command: string;
  readonly tools: readonly string[];
}

const FILE_TESTS = new Set(['-e', '-f', '-s', '-d']);
const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>']);
const REFUSED = 'adf_shell: script refused before it ran';

/**
 * Checks a whole script before any of it runs: every construct must be supported, every command
 * whose name is written out must exist (a command, a builtin or a function the script or the run
 * defines), and every tool a command, a redirect or `[[ -f ]]` resolves to must pass the gate's
 * preflight, wherever it appears: inside `$( … )`, here-documents, function bodies, branches not
 * taken, `find -exec`, `xargs`, `env`/`timeout`/`nohup`/`exec`/`command` and literal `sh -c` /
 * `eval` scripts. The first problem refuses the script (126, or 130 for a human's rejection)
 * with what and where. Words known only at run time (`$x a.txt`) are gated when they run.
 *
 * @example
 * ```ts
 * const r = await checkScript(config, syntax.parse('echo a; curl http://x'), new Set());
 * if (r.kind === 'refused') return r.status; // nothing ran, not even `echo a`
 * ```
 */
export async function checkScript(
  config: CheckConfig,
  file: File,
  functions: ReadonlySet<string>,
): Promise<ScriptCheck> {
  const uses: Use[] = [];
  const defined = new Set(functions);
  const sources = collectFunctions(file, defined);
  const problem = walkFile(config, file, defined, uses, '', 0, sources);
  if (problem) {
    return {
      kind: 'refused',
      status: EXIT_DENIED,
      message: `${REFUSED}: ${problem.where}: ${problem.what}\n`,
      trace: { command: problem.command, tools: [], outcome: problem.unknown ? 'unknown' : 'disabled' },
    };
  }
  const asked = new Map<string, Awaited<ReturnType<ShellGate['preflight']>>>();
  for (const use of uses) {
    for (const tool of use.tools) {
      let d = asked.get(tool);
      if (!d) {
        d = await config.gate.preflight(tool);
        asked.set(tool, d);
      }
      if (isDenied(d)) {
        const rejected = config.rejection.has(d.code);
        const verdict = rejected ? 'was not approved' : 'is not allowed';
        return {
          kind: 'refused',
          status: rejected ? EXIT_REJECTED : EXIT_DENIED,
          message: `${REFUSED}: ${use.where}: ${use.command}: ${tool} ${verdict}: ${d.reason}\n`,
          trace: { command: use.command, tools: use.tools, outcome: rejected ? 'rejected' : 'disabled' },
        };
      }
    }
  }
  return { kind: 'ok' };
}

interface Problem {
  readonly where: string;
  readonly what: string;
  readonly command: string;
  readonly unknown?: boolean;
}

type Node = { readonly type?: string; readonly [k: string]: unknown };

/**
 * Adds the names of the functions the script declares; true when it also sources a file or
 * evaluates words known only at run time (which may declare more: their names are then judged
 * when they run, where an unknown one is still 127).
 */
function collectFunctions(node: unknown, into: Set<string>): boolean {
  let opens = false;
  if (Array.isArray(node)) for (const n of node) opens = collectFunctions(n, into) || opens;
  else if (node && typeof node === 'object') {
    const n = node as Node;
    if (n.type === 'FuncDecl') {
      const name = (n.Name as { Value?: string } | null)?.Value;
      if (name) into.add(name);
    } else if (n.type === 'CallExpr') {
      const args = n.Args as readonly Word[];
      const name = args[0] ? literal(args[0]) : undefined;
      if (name === 'source' || name === '.' || (name === 'eval' && args.slice(1).some((w) => !literal(w))))
        opens = true;
    }
    for (const v of Object.values(n)) if (v && typeof v === 'object') opens = collectFunctions(v, into) || opens;
  }
  return opens;
}

function walkFile(
  config: CheckConfig,
  file: File,
  defined: ReadonlySet<string>,
  uses: Use[],
  prefix: string,
  depth: number,
  opens: boolean,
): Problem | undefined {
  let line = 1;
  const at = () => `${prefix}line ${line}`;
  const visit = (node: unknown): Problem | undefined => {
    if (Array.isArray(node)) {
      for (const n of node) {
        const p = visit(n);
        if (p) return p;
      }
      return undefined;
    }
    if (!node || typeof node !== 'object') return undefined;
    const n = node as Node;
    if (n.type === 'Stmt') {
      if (typeof n.Line === 'number' && n.Line > 0) line = n.Line;
      if (n.Background)
        return { where: at(), what: 'unsupported syntax: background jobs (&); drop the &', command: '&' };
      if (n.Coprocess) return { where: at(), what: 'unsupported syntax: coprocesses (coproc)', command: 'coproc' };
      const tools = redirectTools(config, n.Redirs as readonly Redirect[]);
      if (tools.length > 0) uses.push({ where: at(), command: '(redirect)', tools });
    } else if (n.type === 'Unsupported') {
      const name = constructName(String(n.name));
      return { where: at(), what: `unsupported syntax: ${name}`, command: name };
    } else if (n.type === 'ForClause' && n.Select) {
      return { where: at(), what: 'unsupported syntax: select loops', command: 'select' };
    } else if (n.type === 'Redirect') {
      const fd = (n.N as { Value?: string } | null)?.Value;
      if (fd !== undefined && !/^[012]$/.test(fd))
        return { where: at(), what: `unsupported syntax: file descriptor ${fd} (only 0, 1 and 2 exist)`, command: fd };
    } else if (n.type === 'TestClause') {
      if (usesFileTest(config, n.X)) uses.push({ where: at(), command: '[[', tools: ['fs_read'] });
    } else if (n.type === 'DeclClause') {
      for (const a of n.Args as ReadonlyArray<{ Name: unknown; Value: Word | null }>) {
        const flag = a.Name ? undefined : a.Value ? literal(a.Value) : undefined;
        if (flag !== undefined && /^-[a-zA-Z]*A/.test(flag))
          return { where: at(), what: 'unsupported syntax: associative arrays (declare -A)', command: 'declare' };
      }
    } else if (n.type === 'CallExpr') {
      const argv = (n.Args as readonly Word[]).map((w) => literal(w) ?? DYNAMIC_WORD);
      const p = checkArgv(argv, 0);
      if (p) return p;
    }
    for (const v of Object.values(n)) {
      if (v && typeof v === 'object') {
        const p = visit(v);
        if (p) return p;
      }
    }
    return undefined;
  };

  const checkArgv = (argv: readonly string[], nesting: number): Problem | undefined => {
    const name = argv[0];
    if (name === undefined || name === DYNAMIC_WORD || nesting > config.maxDepth) return undefined;
    if (defined.has(name) || name in BUILTIN_SUMMARIES) return undefined;
    const command = config.commands.get(name);
    if (!command && opens) return undefined;
    if (!command)
      return {
        where: at(),
        what: `${name}: command not found (this is a virtual shell; run \`help\` for its commands)`,
        command: name,
        unknown: true,
      };
    const args = argv.slice(1);
    if (args.length === 1 && args[0] === '--help') return undefined;
    let tools: readonly string[] = [];
    try {
      tools = command.tools(args);
    } catch {
      // a bad option: the command itself refuses it with exit 2 when it runs
    }
    if (tools.length > 0) uses.push({ where: at(), command: name, tools });
    let inner: ReturnType<NonNullable<ShellCommand['nested']>> = {};
    try {
      inner = command.nested?.(args) ?? {};
    } catch {
      // as above
    }
    for (const c of inner.commands ?? []) {
      const p = checkArgv(c, nesting + 1);
      if (p) return p;
    }
    for (const source of inner.scripts ?? []) {
      if (source.includes(DYNAMIC_WORD) || depth >= config.maxDepth) continue;
      let parsed: File;
      try {
        parsed = config.syntax.parse(source);
      } catch {
        continue; // its syntax error is reported when it runs, as in bash
      }
      const inDefined = new Set(defined);
      const inOpens = collectFunctions(parsed, inDefined) || opens;
      const p = walkFile(config, parsed, inDefined, uses, `${at()}: ${name}: `, depth + 1, inOpens);
      if (p) return p;
    }
    return undefined;
  };

  return visit(file.Stmts);
}

/** The tools a statement's redirects use (a target known only at run time counts as a file). */
function redirectTools(config: CheckConfig, redirs: readonly Redirect[] | null | undefined): string[] {
  const tools = new Set<string>();
  for (const r of redirs ?? []) {
    const op = config.syntax.ops.redirect.get(r.Op);
    const target = r.Word ? literal(r.Word) : undefined;
    if (target === '/dev/null') continue;
    if (op === '<') tools.add('fs_read');
    else if (op && WRITE_OPS.has(op)) tools.add('fs_write');
    else if (op === '>&' && r.N === null && target !== undefined && !/^([0-9]+|-)$/.test(target)) tools.add('fs_write');
  }
  return [...tools];
}

function usesFileTest(config: CheckConfig, x: unknown): boolean {
  if (!x || typeof x !== 'object') return false;
  const n = x as Node;
  if (n.type === 'UnaryTest' && FILE_TESTS.has(config.syntax.ops.testUnary.get(n.Op as number) ?? '')) return true;
  return Object.values(n).some((v) => usesFileTest(config, v));
}

const GLOB = /[*?[]/;

/**
 * A word's value if it is written out (no expansion, no glob; brace lists are parsed apart); `undefined` when it
 * is known only at run time.
 */
export function literal(word: Word): string | undefined {
  let s = '';
  for (const p of word.Parts) {
    if (p.type === 'Lit') {
      if (GLOB.test(p.Value)) return undefined;
      s += p.Value.replace(/\\(.)/gs, '$1');
    } else if (p.type === 'SglQuoted') {
      if (p.Dollar) return undefined;
      s += p.Value;
    } else if (p.type === 'DblQuoted') {
      for (const q of p.Parts) {
        if (q.type !== 'Lit' || q.Value.includes('\\')) return undefined;
        s += q.Value;
      }
    } else return undefined;
  }
  return s;
}
