import { TrustError } from '@trust/core';
import type { Node, ShellSyntax } from './shell-syntax.js';

/** Variables and positional parameters visible to expansion. */
export interface ExpandScope {
  vars: Map<string, string>;
  positional: string[];
  lastStatus: number;
}

/** Runs a command substitution and returns its stdout (the caller gates each inner command). */
export type SubstRunner = (stmts: Node[]) => Promise<string>;

interface Segment { readonly text: string; readonly split: boolean }

/**
 * Expands one word to fields: parameters, command substitution, arithmetic, quotes and
 * escapes, then field splitting of unquoted expansions. No pathname globbing: the virtual
 * files are listed through tools, never matched by the shell.
 */
export async function expandFields(word: Node, scope: ExpandScope, syntax: ShellSyntax, subst: SubstRunner): Promise<string[]> {
  const fields: string[][] = [[]];
  let sawQuoted = false;
  const pushSegments = (segs: Segment[]) => {
    for (const s of segs) {
      if (!s.split) { fields[fields.length - 1]!.push(s.text); continue; }
      const pieces = s.text.split(/[ \t\n]+/);
      pieces.forEach((p, i) => {
        if (i > 0) fields.push([]);
        fields[fields.length - 1]!.push(p);
      });
    }
  };
  for (const part of word.Parts as Node[]) {
    const t = syntax.nodeType(part);
    if (t === 'SglQuoted' || t === 'DblQuoted') sawQuoted = true;
    if (t === 'ParamExp' && isAt(part) ) {
      // unquoted $@ / $*: one field per positional parameter
      scope.positional.forEach((p, i) => { if (i > 0) fields.push([]); fields[fields.length - 1]!.push(p); });
      continue;
    }
    if (t === 'DblQuoted' && part.Parts.length === 1 && syntax.nodeType(part.Parts[0]) === 'ParamExp' && part.Parts[0].Param?.Value === '@' && !part.Parts[0].Exp) {
      scope.positional.forEach((p, i) => { if (i > 0) fields.push([]); fields[fields.length - 1]!.push(p); });
      continue;
    }
    pushSegments(await expandPart(part, scope, syntax, subst, false));
  }
  const out = fields.map((f) => f.join(''));
  if (!sawQuoted) return out.filter((f) => f.length > 0);
  return out;
}

/** Expands a word to one string (redirect targets, assignments, here-docs): no splitting. */
export async function expandString(word: Node, scope: ExpandScope, syntax: ShellSyntax, subst: SubstRunner): Promise<string> {
  let s = '';
  for (const part of word.Parts as Node[]) for (const seg of await expandPart(part, scope, syntax, subst, true)) s += seg.text;
  return s;
}

function isAt(part: Node): boolean {
  const v = part.Param?.Value;
  return (v === '@' || v === '*') && !part.Exp && !part.Length;
}

async function expandPart(part: Node, scope: ExpandScope, syntax: ShellSyntax, subst: SubstRunner, quoted: boolean): Promise<Segment[]> {
  const t = syntax.nodeType(part);
  switch (t) {
    case 'Lit':
      return [{ text: quoted ? unescapeDouble(part.Value) : unescapeBare(part.Value), split: false }];
    case 'SglQuoted':
      return [{ text: part.Dollar ? unescapeAnsiC(part.Value) : part.Value, split: false }];
    case 'DblQuoted': {
      let s = '';
      for (const p of part.Parts as Node[]) {
        if (syntax.nodeType(p) === 'Lit') s += unescapeDouble(p.Value);
        else for (const seg of await expandPart(p, scope, syntax, subst, true)) s += seg.text;
      }
      return [{ text: s, split: false }];
    }
    case 'ParamExp':
      return [{ text: await expandParam(part, scope, syntax, subst), split: !quoted }];
    case 'CmdSubst':
      return [{ text: (await subst(part.Stmts)).replace(/\n+$/, ''), split: !quoted }];
    case 'ArithmExp':
      return [{ text: String(await arith(part.X, scope, syntax, subst)), split: !quoted }];
    default:
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported expansion ${t}`, { hint: 'use plain words, quotes, $VAR, ${VAR:-default}, $(cmd) or $((arithmetic))' });
  }
}

function paramValue(name: string, scope: ExpandScope): string | undefined {
  if (name === '?') return String(scope.lastStatus);
  if (name === '#') return String(scope.positional.length);
  if (name === '@' || name === '*') return scope.positional.join(' ');
  if (name === '$') return '1';
  if (name === '0') return 'adf_shell';
  if (/^[1-9][0-9]*$/.test(name)) return scope.positional[Number(name) - 1];
  return scope.vars.get(name);
}

async function expandParam(part: Node, scope: ExpandScope, syntax: ShellSyntax, subst: SubstRunner): Promise<string> {
  const name: string = part.Param?.Value ?? '';
  const value = paramValue(name, scope);
  if (part.Length) return String((value ?? '').length);
  if (part.Repl) {
    const from = part.Repl.Orig ? await expandString(part.Repl.Orig, scope, syntax, subst) : '';
    const to = part.Repl.With ? await expandString(part.Repl.With, scope, syntax, subst) : '';
    if (!from) return value ?? '';
    return part.Repl.All ? (value ?? '').split(from).join(to) : (value ?? '').replace(from, to);
  }
  if (!part.Exp) return value ?? '';
  const op = syntax.ops.paramExp.get(part.Exp.Op);
  const arg = async () => (part.Exp.Word ? expandString(part.Exp.Word, scope, syntax, subst) : '');
  const unsetOrEmpty = value === undefined || value === '';
  switch (op) {
    case ':-': return unsetOrEmpty ? arg() : value!;
    case '-': return value === undefined ? arg() : value;
    case ':=': case '=': {
      if (op === ':=' ? unsetOrEmpty : value === undefined) { const v = await arg(); scope.vars.set(name, v); return v; }
      return value!;
    }
    case ':+': return unsetOrEmpty ? '' : arg();
    case '+': return value === undefined ? '' : arg();
    case ':?': case '?':
      if (op === ':?' ? unsetOrEmpty : value === undefined) throw new TrustError('SHELL_PARAM_UNSET', `adf_shell: ${name}: ${(await arg()) || 'parameter not set'}`);
      return value!;
    case '#': case '##': case '%': case '%%':
      return trimPattern(value ?? '', await arg(), op);
    default:
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported parameter expansion on ${name}`);
  }
}

function globToRegex(pattern: string): string {
  return pattern.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.+()|{}[\]]/g, '\\$&'))).join('');
}

function trimPattern(value: string, pattern: string, op: string): string {
  const body = globToRegex(pattern);
  const lazy = op === '#' || op === '%';
  const q = lazy ? body.replace(/\.\*/g, '.*?') : body;
  if (op === '#' || op === '##') return value.replace(new RegExp(`^${q}`, 's'), '');
  // suffix: try the shortest (or longest) match anchored at the end
  const starts = Array.from({ length: value.length + 1 }, (_v, i) => i);
  const order = lazy ? starts.reverse() : starts;
  for (const i of order) if (new RegExp(`^${body}$`, 's').test(value.slice(i))) return value.slice(0, i);
  return value;
}

/** Case patterns: `*`, `?` and literal text. */
export function matchCasePattern(value: string, pattern: string): boolean {
  return new RegExp(`^${globToRegex(pattern)}$`, 's').test(value);
}

async function arith(x: Node, scope: ExpandScope, syntax: ShellSyntax, subst: SubstRunner): Promise<number> {
  const t = syntax.nodeType(x);
  if (t === 'Word') {
    const s = (await expandString(x, scope, syntax, subst)).trim();
    if (/^-?[0-9]+$/.test(s)) return Number(s);
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) { const v = scope.vars.get(s) ?? '0'; return /^-?[0-9]+$/.test(v.trim()) ? Number(v.trim()) : 0; }
    throw new TrustError('SHELL_ARITH', `adf_shell: bad arithmetic operand ${JSON.stringify(s)}`);
  }
  if (t === 'ParenArithm') return arith(x.X, scope, syntax, subst);
  if (t === 'BinaryArithm') {
    const a = await arith(x.X, scope, syntax, subst);
    const b = await arith(x.Y, scope, syntax, subst);
    switch (syntax.ops.arith.get(x.Op)) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': if (b === 0) throw new TrustError('SHELL_ARITH', 'adf_shell: division by zero'); return Math.trunc(a / b);
      case '%': if (b === 0) throw new TrustError('SHELL_ARITH', 'adf_shell: division by zero'); return a % b;
      case '==': return a === b ? 1 : 0;
      case '!=': return a !== b ? 1 : 0;
      case '<': return a < b ? 1 : 0;
      case '>': return a > b ? 1 : 0;
      case '<=': return a <= b ? 1 : 0;
      case '>=': return a >= b ? 1 : 0;
      case '&&': return a && b ? 1 : 0;
      case '||': return a || b ? 1 : 0;
    }
  }
  throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported arithmetic ${t}`, { hint: 'supported: + - * / % comparisons && || and parentheses' });
}

function unescapeBare(s: string): string {
  return s.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

function unescapeDouble(s: string): string {
  return s.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
}

function unescapeAnsiC(s: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', e: '\x1b', f: '\f', v: '\v', '0': '\0' };
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|.)/gs, (_m, c: string) => (c.startsWith('x') && c.length > 1 ? String.fromCharCode(parseInt(c.slice(1), 16)) : map[c] ?? `\\${c}`));
}
