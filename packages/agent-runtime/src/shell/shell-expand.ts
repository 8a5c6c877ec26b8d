import { TrustError } from '@trust/core';
import type { BraceExp, ParamExp, Stmt, Word, WordPart } from './shell-ast.js';
import { constructName } from './shell-ast.js';
import type { ShellSyntax } from './shell-syntax.js';
import { ExpansionError } from './shell-state.js';
import type { ExpandScope } from './shell-state.js';
import { arith } from './shell-arith.js';
import { splitFields } from './shell-ifs.js';
import { globToRegex, isGlobPattern } from './shell-glob.js';

export type { ExpandScope };

/** Runs a command substitution and returns its stdout (the caller gates each inner command and records its status). */
export type SubstRunner = (stmts: readonly Stmt[]) => Promise<string>;

/** `pattern`: for unquoted literal text, its glob form (escapes kept); absent means match literally. */
interface Segment {
  readonly text: string;
  readonly split: boolean;
  readonly pattern?: string;
}

/**
 * Expands one word to fields: parameters, command substitution, arithmetic, quotes and
 * escapes, then field splitting of unquoted expansions. No pathname globbing: the virtual
 * files are listed through tools, never matched by the shell.
 */
export async function expandFields(
  word: Word,
  scope: ExpandScope,
  syntax: ShellSyntax,
  subst: SubstRunner,
  glob?: GlobRunner,
): Promise<string[]> {
  if (word.Parts.some((p) => p.type === 'BraceExp')) {
    const out: string[] = [];
    for (const parts of expandBraces(word.Parts))
      out.push(...(await expandFields({ type: 'Word', Parts: parts }, scope, syntax, subst, glob)));
    return out;
  }
  // Each field keeps its text and its glob pattern (quoted text escaped, unquoted text active).
  const GLOB_CHARS = { test: isGlobPattern };
  const fields: Array<{ text: string; pat: string; active: boolean }> = [{ text: '', pat: '', active: false }];
  const last = () => fields[fields.length - 1]!;
  let sawQuoted = false;
  const ifs = scope.vars.get('IFS');
  const customIfs = ifs !== undefined && ifs !== ' \t\n' && ifs !== ' ';
  const add = (text: string, pat: string, active: boolean) => {
    const f = last();
    f.text += text;
    f.pat += pat;
    f.active ||= active;
  };
  const pushSegments = (segs: Segment[]) => {
    for (const s of segs) {
      if (!s.split) {
        add(s.text, s.pattern ?? escapeGlob(s.text), s.pattern !== undefined && GLOB_CHARS.test(s.pattern));
        continue;
      }
      const pieces = ifs === undefined ? s.text.split(/[ \t\n]+/) : splitFields(s.text, ifs);
      if (pieces.length === 0) continue;
      pieces.forEach((p, i) => {
        if (i > 0) fields.push({ text: '', pat: '', active: false });
        add(p, p, GLOB_CHARS.test(p));
      });
    }
  };
  const pushList = (list: readonly string[], split: boolean) => {
    list.forEach((p, i) => {
      if (i > 0) fields.push({ text: '', pat: '', active: false });
      if (split) pushSegments([{ text: p, split: true }]);
      else add(p, escapeGlob(p), false);
    });
  };
  for (const part of word.Parts) {
    if (part.type === 'SglQuoted' || part.type === 'DblQuoted') sawQuoted = true;
    const list = part.type === 'ParamExp' ? listOf(part, scope) : undefined;
    if (list) {
      pushList(list, true);
      continue;
    }
    const inner =
      part.type === 'DblQuoted' && part.Parts.length === 1 && part.Parts[0]!.type === 'ParamExp'
        ? part.Parts[0]
        : undefined;
    const quotedList = inner && inner.type === 'ParamExp' && isAtForm(inner) ? listOf(inner, scope) : undefined;
    if (quotedList) {
      // "$@" / "${a[@]}": one field per element, none when there are no elements
      if (quotedList.length === 0 && word.Parts.length === 1) return [];
      pushList(quotedList, false);
      continue;
    }
    pushSegments(await expandPart(part, scope, syntax, subst, false));
  }
  // unquoted empty fields vanish; with a non-blank IFS, empty fields between separators stay
  const kept = sawQuoted
    ? fields
    : customIfs
      ? fields.length === 1 && fields[0]!.text === ''
        ? []
        : fields
      : fields.filter((f) => f.text.length > 0);
  if (!glob || !kept.some((f) => f.active)) return kept.map((f) => f.text);
  const out: string[] = [];
  for (const f of kept) {
    const matches = f.active ? await glob(f.pat) : undefined;
    if (matches && matches.length > 0) out.push(...matches);
    else out.push(f.text);
  }
  return out;
}

/** Pathname expansion: the matches of a glob pattern, sorted; none or undefined keeps the word. */
export type GlobRunner = (pattern: string) => Promise<readonly string[] | undefined>;

const escapeGlob = (s: string) => s.replace(/[*?[\]\\]/g, '\\$&');

/** The set elements of an array (arrays may have holes), or a scalar as one element. */
function setElements(scope: ExpandScope, name: string): string[] {
  const arr = scope.arrays.get(name);
  return arr ? arr.filter((x) => x !== undefined) : scope.vars.has(name) ? [scope.vars.get(name)!] : [];
}

/** `$@`, `$*`, `${a[@]}`, `${a[*]}` without operators: the list they stand for, else undefined. */
function listOf(part: ParamExp, scope: ExpandScope): readonly string[] | undefined {
  if (part.Exp || part.Length || part.Repl) return undefined;
  const name = part.Param?.Value ?? '';
  if (!part.Index && (name === '@' || name === '*')) return scope.positional;
  const idx = indexWord(part);
  if (idx === '@' || idx === '*') return setElements(scope, name);
  return undefined;
}

const isAtForm = (part: ParamExp) => (!part.Index && part.Param?.Value === '@') || indexWord(part) === '@';

function indexWord(part: ParamExp): string | undefined {
  const ix = part.Index;
  if (ix?.type !== 'Word' || ix.Parts.length !== 1 || ix.Parts[0]!.type !== 'Lit') return undefined;
  return ix.Parts[0]!.Value;
}

/** Brace expansion of a command word's parts into one part list per resulting word. */
function expandBraces(parts: readonly WordPart[]): WordPart[][] {
  let acc: WordPart[][] = [[]];
  for (const p of parts) {
    if (p.type !== 'BraceExp') {
      for (const a of acc) a.push(p);
      continue;
    }
    const alts = braceAlternatives(p);
    const next: WordPart[][] = [];
    for (const a of acc) for (const alt of alts) for (const sub of expandBraces(alt)) next.push([...a, ...sub]);
    acc = next;
    if (acc.length > 100_000)
      throw new TrustError('SHELL_LIMIT', 'adf_shell: brace expansion yields more than 100000 words');
  }
  return acc;
}

function braceAlternatives(b: BraceExp): ReadonlyArray<readonly WordPart[]> {
  if (!b.Sequence) return b.Elems.map((e) => e.Parts);
  const lit = (w: Word | undefined) =>
    w && w.Parts.length === 1 && w.Parts[0]!.type === 'Lit' ? w.Parts[0]!.Value : '';
  const [from, to, stepText] = [lit(b.Elems[0]), lit(b.Elems[1]), lit(b.Elems[2])];
  const step = Math.abs(Number(stepText || '1')) || 1;
  const mk = (s: string): WordPart[] => [{ type: 'Lit', Value: s }];
  if (/^-?[0-9]+$/.test(from) && /^-?[0-9]+$/.test(to)) {
    const [a, z] = [Number(from), Number(to)];
    const width = /^-?0[0-9]/.test(from) || /^-?0[0-9]/.test(to) ? Math.max(from.length, to.length) : 0;
    if (Math.abs(z - a) / step > 100_000)
      throw new TrustError('SHELL_LIMIT', 'adf_shell: brace sequence longer than 100000');
    const out: WordPart[][] = [];
    for (let i = a; a <= z ? i <= z : i >= z; i += a <= z ? step : -step)
      out.push(
        mk(width ? (i < 0 ? `-${String(-i).padStart(width - 1, '0')}` : String(i).padStart(width, '0')) : String(i)),
      );
    return out;
  }
  const [a, z] = [from.charCodeAt(0), to.charCodeAt(0)];
  const out: WordPart[][] = [];
  for (let i = a; a <= z ? i <= z : i >= z; i += a <= z ? step : -step) out.push(mk(String.fromCharCode(i)));
  return out;
}

/**
 * Expands a word to a glob pattern (case patterns, the right of `[[ == ]]`, `${x#pat}`): quoted
 * parts match literally, unquoted text and expansions keep their glob characters.
 */
export async function expandPattern(
  word: Word,
  scope: ExpandScope,
  syntax: ShellSyntax,
  subst: SubstRunner,
): Promise<string> {
  let s = '';
  for (const part of word.Parts) {
    if (part.type === 'Lit') {
      s += part.Value.replace(/\\\n/g, '');
      continue;
    }
    const quoted = part.type === 'SglQuoted' || part.type === 'DblQuoted';
    for (const seg of await expandPart(part, scope, syntax, subst, true)) s += quoted ? escapeGlob(seg.text) : seg.text;
  }
  return s;
}

/** Expands a word to one string (redirect targets, assignments, here-docs): no splitting. */
export async function expandString(
  word: Word,
  scope: ExpandScope,
  syntax: ShellSyntax,
  subst: SubstRunner,
): Promise<string> {
  let s = '';
  for (const part of word.Parts) for (const seg of await expandPart(part, scope, syntax, subst, true)) s += seg.text;
  return s;
}

async function expandPart(
  part: WordPart,
  scope: ExpandScope,
  syntax: ShellSyntax,
  subst: SubstRunner,
  quoted: boolean,
): Promise<Segment[]> {
  switch (part.type) {
    case 'Lit':
      return quoted
        ? [{ text: unescapeDouble(part.Value), split: false }]
        : [{ text: unescapeBare(part.Value), split: false, pattern: part.Value.replace(/\\\n/g, '') }];
    case 'SglQuoted':
      return [{ text: part.Dollar ? unescapeAnsiC(part.Value) : part.Value, split: false }];
    case 'DblQuoted': {
      let s = '';
      for (const p of part.Parts) {
        if (p.type === 'Lit') s += unescapeDouble(p.Value);
        else for (const seg of await expandPart(p, scope, syntax, subst, true)) s += seg.text;
      }
      return [{ text: s, split: false }];
    }
    case 'ParamExp':
      return [{ text: await expandParam(part, scope, syntax, subst), split: !quoted }];
    case 'CmdSubst':
      return [{ text: (await subst(part.Stmts)).replace(/\n+$/, ''), split: !quoted }];
    case 'ArithmExp':
      return [
        {
          text: String(await arith(part.X, scope, syntax, (w) => expandString(w, scope, syntax, subst))),
          split: !quoted,
        },
      ];
    case 'BraceExp': {
      const elems = await Promise.all(part.Elems.map((e) => expandString(e, scope, syntax, subst)));
      return [{ text: `{${elems.join(part.Sequence ? '..' : ',')}}`, split: false }];
    }
    default:
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported syntax: ${constructName(part.name)}`, {
        hint: 'use plain words, quotes, $VAR, ${VAR:-default}, ${a[i]}, $(cmd) or $((arithmetic))',
      });
  }
}

function paramValue(name: string, scope: ExpandScope, index?: string): string | undefined {
  const arr = scope.arrays.get(name);
  if (index !== undefined) {
    if (index === '@' || index === '*') return setElements(scope, name).join(' ');
    const i = Number(index);
    if (!arr) return i === 0 ? scope.vars.get(name) : undefined;
    return arr[i < 0 ? arr.length + i : i];
  }
  if (arr) return arr[0];
  if (name === '?') return String(scope.lastStatus);
  if (name === '#') return String(scope.positional.length);
  if (name === '@' || name === '*') return scope.positional.join(' ');
  if (name === '$') return '1';
  if (name === '0') return 'adf_shell';
  if (/^[1-9][0-9]*$/.test(name)) return scope.positional[Number(name) - 1];
  return scope.vars.get(name);
}

async function expandParam(
  part: ParamExp,
  scope: ExpandScope,
  syntax: ShellSyntax,
  subst: SubstRunner,
): Promise<string> {
  const name: string = part.Param?.Value ?? '';
  const index = part.Index
    ? indexWord(part) === '@' || indexWord(part) === '*'
      ? indexWord(part)
      : String(await arith(part.Index, scope, syntax, (w) => expandString(w, scope, syntax, subst)))
    : undefined;
  if (part.Length && (index === '@' || index === '*')) return String(setElements(scope, name).length);
  const value = paramValue(name, scope, index);
  const guarded =
    part.Exp !== null &&
    [':-', '-', ':=', '=', ':+', '+', ':?', '?'].includes(syntax.ops.paramExp.get(part.Exp.Op) ?? '');
  if (value === undefined && scope.opts.nounset && !guarded && name !== '@' && name !== '*')
    throw new ExpansionError(`${name}: unbound variable`);
  if (part.Length) return String((value ?? '').length);
  if (part.Repl) {
    const from = part.Repl.Orig ? await expandString(part.Repl.Orig, scope, syntax, subst) : '';
    const to = part.Repl.With ? await expandString(part.Repl.With, scope, syntax, subst) : '';
    if (!from) return value ?? '';
    let pat = from;
    let anchor = '';
    if (pat.startsWith('#') || pat.startsWith('%')) {
      anchor = pat[0]!;
      pat = pat.slice(1);
    }
    const body = globToRegex(pat);
    const re = new RegExp(
      anchor === '#' ? `^(?:${body})` : anchor === '%' ? `(?:${body})$` : body,
      part.Repl.All && !anchor ? 'gs' : 's',
    );
    return (value ?? '').replace(re, () => to);
  }
  if (!part.Exp) return value ?? '';
  const exp = part.Exp;
  const op = syntax.ops.paramExp.get(exp.Op);
  const arg = async () => (exp.Word ? expandString(exp.Word, scope, syntax, subst) : '');
  const unsetOrEmpty = value === undefined || value === '';
  switch (op) {
    case ':-':
      return unsetOrEmpty ? arg() : value!;
    case '-':
      return value === undefined ? arg() : value;
    case ':=':
    case '=': {
      if (op === ':=' ? unsetOrEmpty : value === undefined) {
        const v = await arg();
        scope.vars.set(name, v);
        return v;
      }
      return value!;
    }
    case ':+':
      return unsetOrEmpty ? '' : arg();
    case '+':
      return value === undefined ? '' : arg();
    case ':?':
    case '?':
      if (op === ':?' ? unsetOrEmpty : value === undefined)
        throw new ExpansionError(`${name}: ${(await arg()) || 'parameter null or not set'}`);
      return value!;
    case '#':
    case '##':
    case '%':
    case '%%':
      return trimPattern(value ?? '', await arg(), op);
    default:
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported parameter expansion on ${name}`);
  }
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

function unescapeBare(s: string): string {
  return s.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

function unescapeDouble(s: string): string {
  return s.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
}

function unescapeAnsiC(s: string): string {
  const map: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    '\\': '\\',
    "'": "'",
    '"': '"',
    a: '\x07',
    b: '\b',
    e: '\x1b',
    f: '\f',
    v: '\v',
    '0': '\0',
  };
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|.)/gs, (_m, c: string) =>
    c.startsWith('x') && c.length > 1 ? String.fromCharCode(parseInt(c.slice(1), 16)) : (map[c] ?? `\\${c}`),
  );
}
