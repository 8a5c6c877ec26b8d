/**
 * The awk subset's parser: a program is `BEGIN {…}`, `END {…}` and `pattern {action}` items
 * (pattern: /re/, an expression, or `a, b` ranges are not supported). Statements: print, printf,
 * if/else, while, for(;;), for (k in a), next, exit, blocks, expressions. Expressions: fields
 * ($N, $expr), variables, associative arrays, numbers, strings, regex match (~ !~ /re/),
 * arithmetic, comparison, && || !, ?:, concatenation, assignment (= += -= *= /= %=), ++ --,
 * and the functions length, substr, index, split, sub, gsub, tolower, toupper, int, sprintf.
 */
export type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'regex'; source: string }
  | { kind: 'field'; index: Expr }
  | { kind: 'var'; name: string }
  | { kind: 'elem'; name: string; key: Expr }
  | { kind: 'bin'; op: string; a: Expr; b: Expr }
  | { kind: 'un'; op: string; a: Expr }
  | { kind: 'cond'; c: Expr; a: Expr; b: Expr }
  | { kind: 'assign'; op: string; target: Expr; value: Expr }
  | { kind: 'incr'; op: '++' | '--'; prefix: boolean; target: Expr }
  | { kind: 'call'; name: string; args: Expr[] }
  | { kind: 'in'; key: Expr; name: string };
export type Stmt =
  | { kind: 'print'; args: Expr[] }
  | { kind: 'printf'; args: Expr[] }
  | { kind: 'expr'; e: Expr }
  | { kind: 'block'; body: Stmt[] }
  | { kind: 'if'; c: Expr; then: Stmt; else?: Stmt }
  | { kind: 'while'; c: Expr; body: Stmt }
  | { kind: 'for'; init?: Stmt; c?: Expr; step?: Stmt; body: Stmt }
  | { kind: 'forin'; v: string; arr: string; body: Stmt }
  | { kind: 'next' }
  | { kind: 'exit'; code?: Expr }
  | { kind: 'delete'; name: string; key?: Expr };
export interface Item {
  readonly pattern: 'BEGIN' | 'END' | Expr | undefined;
  readonly action: Stmt[] | undefined;
}

type Tok =
  | { t: 'num'; v: number }
  | { t: 'str'; v: string }
  | { t: 're'; v: string }
  | { t: 'name'; v: string }
  | { t: 'op'; v: string }
  | { t: 'nl' }
  | { t: 'eof' };

const OPS = [
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '^=',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '++',
  '--',
  '!~',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ';',
  ',',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '!',
  '<',
  '>',
  '~',
  '?',
  ':',
  '=',
  '$',
];
export const FUNCS = new Set([
  'length',
  'substr',
  'index',
  'split',
  'sub',
  'gsub',
  'tolower',
  'toupper',
  'int',
  'sprintf',
  'match',
]);

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const regexAllowed = () => {
    const p = out[out.length - 1];
    return !p || p.t === 'nl' || (p.t === 'op' && !(p.v === ')' || p.v === ']' || p.v === '$'));
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '\n') {
      out.push({ t: 'nl' });
      i++;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^[0-9]*\.?[0-9]*(e[+-]?[0-9]+)?/i.exec(src.slice(i))!;
      out.push({ t: 'num', v: Number(m[0]) });
      i += m[0].length;
      continue;
    }
    if (c === '"') {
      let s = '';
      i++;
      while (i < src.length && src[i] !== '"') {
        if (src[i] === '\\') {
          const n = src[++i] ?? '';
          s += n === 'n' ? '\n' : n === 't' ? '\t' : n === '\\' ? '\\' : n === '"' ? '"' : n === '/' ? '/' : `\\${n}`;
          i++;
          continue;
        }
        s += src[i++];
      }
      i++;
      out.push({ t: 'str', v: s });
      continue;
    }
    if (c === '/' && regexAllowed()) {
      let s = '';
      i++;
      while (i < src.length && src[i] !== '/') {
        if (src[i] === '\\' && src[i + 1] === '/') {
          s += '/';
          i += 2;
          continue;
        }
        s += src[i++];
      }
      i++;
      out.push({ t: 're', v: s });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ t: 'name', v: m[0] });
      i += m[0].length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new Error(`syntax error at ${JSON.stringify(src.slice(i, i + 10))}`);
    out.push({ t: 'op', v: op });
    i += op.length;
  }
  out.push({ t: 'eof' });
  return out;
}

/** Parses an awk program. Throws Error with a message naming what is not supported. */
export function parseAwk(src: string): Item[] {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p]!;
  const isOp = (v: string) => {
    const t = peek();
    return t.t === 'op' && t.v === v;
  };
  const isName = (v: string) => {
    const t = peek();
    return t.t === 'name' && t.v === v;
  };
  const expect = (v: string) => {
    if (!isOp(v)) throw new Error(`expected ${v}`);
    p++;
  };
  const nls = () => {
    while (peek().t === 'nl' || isOp(';')) p++;
  };
  const optNl = () => {
    while (peek().t === 'nl') p++;
  };

  const block = (): Stmt[] => {
    expect('{');
    const body: Stmt[] = [];
    nls();
    while (!isOp('}')) {
      body.push(stmt());
      nls();
    }
    p++;
    return body;
  };
  const simple = (): Stmt => {
    if (isName('print') || isName('printf')) {
      const kind = (peek() as { v: string }).v as 'print' | 'printf';
      p++;
      const args: Expr[] = [];
      const paren = isOp('(') && kind === 'printf';
      if (paren) p++;
      if (!(peek().t === 'nl' || isOp(';') || isOp('}') || peek().t === 'eof' || isOp(')'))) {
        args.push(expr(true));
        while (isOp(',')) {
          p++;
          optNl();
          args.push(expr(true));
        }
      }
      if (paren) expect(')');
      if (isOp('>') || isOp('|'))
        throw new Error('output redirection in print is not supported; redirect the whole awk command');
      return { kind, args };
    }
    return { kind: 'expr', e: expr(false) };
  };
  const stmt = (): Stmt => {
    if (isOp('{')) return { kind: 'block', body: block() };
    if (isName('if')) {
      p++;
      expect('(');
      const c = expr(false);
      expect(')');
      optNl();
      const then = stmt();
      const save = p;
      nls();
      if (isName('else')) {
        p++;
        optNl();
        return { kind: 'if', c, then, else: stmt() };
      }
      p = save;
      return { kind: 'if', c, then };
    }
    if (isName('while')) {
      p++;
      expect('(');
      const c = expr(false);
      expect(')');
      optNl();
      return { kind: 'while', c, body: stmt() };
    }
    if (isName('for')) {
      p++;
      expect('(');
      const t1 = toks[p];
      const t2 = toks[p + 1];
      const t3 = toks[p + 2];
      if (t1?.t === 'name' && t2?.t === 'name' && t2.v === 'in' && t3?.t === 'name' && toks[p + 3]?.t === 'op') {
        p += 3;
        expect(')');
        optNl();
        return { kind: 'forin', v: t1.v, arr: t3.v, body: stmt() };
      }
      const init = isOp(';') ? undefined : simple();
      expect(';');
      const c = isOp(';') ? undefined : expr(false);
      expect(';');
      const step = isOp(')') ? undefined : simple();
      expect(')');
      optNl();
      return { kind: 'for', ...(init ? { init } : {}), ...(c ? { c } : {}), ...(step ? { step } : {}), body: stmt() };
    }
    if (isName('next')) {
      p++;
      return { kind: 'next' };
    }
    if (isName('exit')) {
      p++;
      const end = peek().t === 'nl' || isOp(';') || isOp('}') || peek().t === 'eof';
      return end ? { kind: 'exit' } : { kind: 'exit', code: expr(false) };
    }
    if (isName('delete')) {
      p++;
      const t = peek();
      if (t.t !== 'name') throw new Error('delete needs an array');
      p++;
      if (isOp('[')) {
        p++;
        const key = expr(false);
        expect(']');
        return { kind: 'delete', name: t.v, key };
      }
      return { kind: 'delete', name: t.v };
    }
    if (isName('function') || isName('getline')) throw new Error(`${(peek() as { v: string }).v} is not supported`);
    return simple();
  };

  // precedence climbing; `noGt` makes `>` end a print argument (where it would be a redirect)
  const expr = (noGt: boolean): Expr => ternary(noGt);
  const ternary = (noGt: boolean): Expr => {
    const c = or(noGt);
    if (isOp('?')) {
      p++;
      const a = ternary(noGt);
      expect(':');
      const b = ternary(noGt);
      return { kind: 'cond', c, a, b };
    }
    if (
      peek().t === 'op' &&
      ['=', '+=', '-=', '*=', '/=', '%=', '^='].includes((peek() as { v: string }).v) &&
      (c.kind === 'var' || c.kind === 'field' || c.kind === 'elem')
    ) {
      const op = (toks[p++] as { v: string }).v;
      return { kind: 'assign', op, target: c, value: ternary(noGt) };
    }
    return c;
  };
  const or = (noGt: boolean): Expr => {
    let a = and(noGt);
    while (isOp('||')) {
      p++;
      optNl();
      a = { kind: 'bin', op: '||', a, b: and(noGt) };
    }
    return a;
  };
  const and = (noGt: boolean): Expr => {
    let a = inExpr(noGt);
    while (isOp('&&')) {
      p++;
      optNl();
      a = { kind: 'bin', op: '&&', a, b: inExpr(noGt) };
    }
    return a;
  };
  const inExpr = (noGt: boolean): Expr => {
    const a = match(noGt);
    if (isName('in')) {
      p++;
      const t = toks[p++];
      if (t?.t !== 'name') throw new Error('in needs an array');
      return { kind: 'in', key: a, name: t.v };
    }
    return a;
  };
  const match = (noGt: boolean): Expr => {
    let a = compare(noGt);
    while (isOp('~') || isOp('!~')) {
      const op = (toks[p++] as { v: string }).v;
      a = { kind: 'bin', op, a, b: compare(noGt) };
    }
    return a;
  };
  const compare = (noGt: boolean): Expr => {
    const a = concat(noGt);
    for (const op of ['<', '<=', '!=', '==', '>', '>='])
      if (isOp(op) && !(noGt && op === '>')) {
        p++;
        return { kind: 'bin', op, a, b: concat(noGt) };
      }
    return a;
  };
  const startsOperand = () => {
    const t = peek();
    return (
      t.t === 'num' ||
      t.t === 'str' ||
      t.t === 're' ||
      (t.t === 'name' && !['in', 'else'].includes(t.v)) ||
      (t.t === 'op' && ['$', '(', '!', '-', '+', '++', '--'].includes(t.v))
    );
  };
  const concat = (noGt: boolean): Expr => {
    let a = additive();
    while (startsOperand() && !isOp('-') && !isOp('+')) a = { kind: 'bin', op: 'cat', a, b: additive() };
    void noGt;
    return a;
  };
  const additive = (): Expr => {
    let a = mult();
    while (isOp('+') || isOp('-')) {
      const op = (toks[p++] as { v: string }).v;
      a = { kind: 'bin', op, a, b: mult() };
    }
    return a;
  };
  const mult = (): Expr => {
    let a = unary();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const op = (toks[p++] as { v: string }).v;
      a = { kind: 'bin', op, a, b: unary() };
    }
    return a;
  };
  const unary = (): Expr => {
    if (isOp('!') || isOp('-') || isOp('+')) {
      const op = (toks[p++] as { v: string }).v;
      return { kind: 'un', op, a: unary() };
    }
    return power();
  };
  const power = (): Expr => {
    const a = postfix();
    if (isOp('^')) {
      p++;
      return { kind: 'bin', op: '^', a, b: unary() };
    }
    return a;
  };
  const postfix = (): Expr => {
    if (isOp('++') || isOp('--')) {
      const op = (toks[p++] as { v: string }).v as '++' | '--';
      return { kind: 'incr', op, prefix: true, target: primary() };
    }
    const e = primary();
    if ((isOp('++') || isOp('--')) && (e.kind === 'var' || e.kind === 'elem' || e.kind === 'field')) {
      const op = (toks[p++] as { v: string }).v as '++' | '--';
      return { kind: 'incr', op, prefix: false, target: e };
    }
    return e;
  };
  const primary = (): Expr => {
    const t = toks[p++]!;
    if (t.t === 'num') return { kind: 'num', value: t.v };
    if (t.t === 'str') return { kind: 'str', value: t.v };
    if (t.t === 're') return { kind: 'regex', source: t.v };
    if (t.t === 'op' && t.v === '$') return { kind: 'field', index: postfixless() };
    if (t.t === 'op' && t.v === '(') {
      const e = expr(false);
      expect(')');
      return e;
    }
    if (t.t === 'name') {
      if (FUNCS.has(t.v)) {
        const args: Expr[] = [];
        if (isOp('(')) {
          p++;
          if (!isOp(')')) {
            args.push(expr(false));
            while (isOp(',')) {
              p++;
              args.push(expr(false));
            }
          }
          expect(')');
        }
        return { kind: 'call', name: t.v, args };
      }
      if (isOp('[')) {
        p++;
        const key = expr(false);
        const extra: Expr[] = [];
        while (isOp(',')) {
          p++;
          extra.push(expr(false));
        }
        expect(']');
        return {
          kind: 'elem',
          name: t.v,
          key: extra.reduce<Expr>(
            (k, x) => ({
              kind: 'bin',
              op: 'cat',
              a: { kind: 'bin', op: 'cat', a: k, b: { kind: 'str', value: '\x1c' } },
              b: x,
            }),
            key,
          ),
        };
      }
      if (isOp('(')) throw new Error(`function ${t.v}() is not supported`);
      return { kind: 'var', name: t.v };
    }
    throw new Error(`syntax error near ${t.t === 'op' ? t.v : t.t}`);
  };
  const postfixless = (): Expr => {
    if (isOp('++') || isOp('--') || isOp('-')) return unary();
    return primary();
  };

  const items: Item[] = [];
  nls();
  while (peek().t !== 'eof') {
    if (isName('BEGIN') || isName('END')) {
      const which = (toks[p++] as { v: string }).v as 'BEGIN' | 'END';
      optNl();
      items.push({ pattern: which, action: block() });
    } else {
      const pattern = isOp('{') ? undefined : expr(false);
      if (isOp(',')) throw new Error('range patterns (a, b) are not supported');
      items.push({ pattern, action: isOp('{') ? block() : undefined });
    }
    nls();
  }
  return items;
}
