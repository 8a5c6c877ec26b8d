import type { ShellCommand } from '../shell-types.js';
import { inputText, lines, parseArgs } from './text.js';
import { parseAwk } from './awk-parse.js';
import type { Expr, Item, Stmt } from './awk-parse.js';
import { posixRegex } from './sed.js';
import { formatPrintf } from './printf-format.js';

/** A value from input (a field, split element, -v): a number when it looks like one, but printed as written. */
class StrNum {
  constructor(readonly s: string) {}
}
type Val = string | number | StrNum;
class Next {}
class Exit {
  constructor(readonly code: number) {}
}

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i;
const num = (v: Val): number => (typeof v === 'number' ? v : parseFloat(v instanceof StrNum ? v.s : v) || 0);
const str = (v: Val): string =>
  typeof v === 'string'
    ? v
    : v instanceof StrNum
      ? v.s
      : Number.isInteger(v)
        ? String(v)
        : String(Number(v.toPrecision(6)));
const truthy = (v: Val) =>
  typeof v === 'number' ? v !== 0 : v instanceof StrNum ? (NUMERIC.test(v.s) ? num(v) !== 0 : v.s !== '') : v !== '';
const input = (s: string): Val => (NUMERIC.test(s) || s === '' ? new StrNum(s) : s);

/** One run of an awk program over its input. */
class AwkRun {
  vars = new Map<string, Val>();
  arrays = new Map<string, Map<string, Val>>();
  fields: string[] = [''];
  out = '';
  constructor(
    readonly items: Item[],
    fs: string,
    assigns: ReadonlyArray<[string, string]>,
  ) {
    this.vars.set('FS', fs);
    this.vars.set('OFS', ' ');
    this.vars.set('ORS', '\n');
    this.vars.set('NR', 0);
    this.vars.set('NF', 0);
    this.vars.set('SUBSEP', '\x1c');
    for (const [k, v] of assigns) this.vars.set(k, input(v));
  }

  setRecord(line: string) {
    const fs = str(this.vars.get('FS') ?? ' ');
    const parts =
      line === ''
        ? []
        : fs === ' '
          ? line
              .trim()
              .split(/[ \t\n]+/)
              .filter((x) => x !== '')
          : line.split(fs.length === 1 ? fs : posixRegex(fs, true));
    this.fields = [line, ...parts];
    this.vars.set('NF', parts.length);
  }
  getField(i: number): string {
    return i === 0 ? this.fields[0]! : (this.fields[i] ?? '');
  }
  setField(i: number, v: string) {
    if (i === 0) {
      this.setRecord(v);
      return;
    }
    while (this.fields.length <= i) this.fields.push('');
    this.fields[i] = v;
    this.vars.set('NF', this.fields.length - 1);
    this.fields[0] = this.fields.slice(1).join(str(this.vars.get('OFS') ?? ' '));
  }
  arr(name: string) {
    let a = this.arrays.get(name);
    if (!a) {
      a = new Map();
      this.arrays.set(name, a);
    }
    return a;
  }

  get(e: Expr): Val {
    if (e.kind === 'var') {
      const v = this.vars.get(e.name);
      return v === undefined ? new StrNum('') : v;
    }
    if (e.kind === 'field') return this.fieldVal(Math.trunc(num(this.eval(e.index))));
    if (e.kind === 'elem') return this.arr(e.name).get(str(this.eval(e.key))) ?? new StrNum('');
    throw new Error('not assignable');
  }
  fieldVal(i: number): Val {
    return input(this.getField(i));
  }
  set(e: Expr, v: Val) {
    if (e.kind === 'var') this.vars.set(e.name, v);
    else if (e.kind === 'field') this.setField(Math.trunc(num(this.eval(e.index))), str(v));
    else if (e.kind === 'elem') this.arr(e.name).set(str(this.eval(e.key)), v);
    if (e.kind === 'var' && e.name === 'NF') {
      const n = Math.trunc(num(v));
      this.fields = this.fields.slice(0, n + 1);
      while (this.fields.length < n + 1) this.fields.push('');
      this.fields[0] = this.fields.slice(1).join(str(this.vars.get('OFS') ?? ' '));
    }
  }

  eval(e: Expr): Val {
    switch (e.kind) {
      case 'num':
        return e.value;
      case 'str':
        return e.value;
      case 'regex':
        return posixRegex(e.source, true).test(this.fields[0]!) ? 1 : 0;
      case 'var':
      case 'field':
      case 'elem':
        return this.get(e);
      case 'in':
        return this.arr(e.name).has(str(this.eval(e.key))) ? 1 : 0;
      case 'cond':
        return truthy(this.eval(e.c)) ? this.eval(e.a) : this.eval(e.b);
      case 'un': {
        const v = this.eval(e.a);
        return e.op === '!' ? (truthy(v) ? 0 : 1) : e.op === '-' ? -num(v) : num(v);
      }
      case 'incr': {
        const old = num(this.get(e.target));
        const nv = e.op === '++' ? old + 1 : old - 1;
        this.set(e.target, nv);
        return e.prefix ? nv : old;
      }
      case 'assign': {
        const v = this.eval(e.value);
        const r = e.op === '=' ? v : arith(e.op.slice(0, -1), num(this.get(e.target)), num(v));
        this.set(e.target, r);
        return r;
      }
      case 'bin': {
        if (e.op === '&&') return truthy(this.eval(e.a)) && truthy(this.eval(e.b)) ? 1 : 0;
        if (e.op === '||') return truthy(this.eval(e.a)) || truthy(this.eval(e.b)) ? 1 : 0;
        if (e.op === '~' || e.op === '!~') {
          const re = e.b.kind === 'regex' ? posixRegex(e.b.source, true) : posixRegex(str(this.eval(e.b)), true);
          return re.test(str(this.eval(e.a))) === (e.op === '~') ? 1 : 0;
        }
        const a = this.eval(e.a);
        const b = this.eval(e.b);
        if (e.op === 'cat') return str(a) + str(b);
        if (['<', '<=', '>', '>=', '==', '!='].includes(e.op)) {
          const numeric = isNum(a) && isNum(b);
          const x = numeric ? num(a) : str(a);
          const y = numeric ? num(b) : str(b);
          const r =
            e.op === '<'
              ? x < y
              : e.op === '<='
                ? x <= y
                : e.op === '>'
                  ? x > y
                  : e.op === '>='
                    ? x >= y
                    : e.op === '=='
                      ? x === y
                      : x !== y;
          return r ? 1 : 0;
        }
        return arith(e.op, num(a), num(b));
      }
      case 'call':
        return this.call(e.name, e.args);
    }
  }

  call(name: string, args: Expr[]): Val {
    const s = (i: number) => str(this.eval(args[i]!));
    switch (name) {
      case 'length':
        return args.length === 0
          ? [...this.fields[0]!].length
          : args[0]!.kind === 'var' && this.arrays.has(args[0]!.name)
            ? this.arrays.get(args[0]!.name)!.size
            : [...s(0)].length;
      case 'substr': {
        const t = s(0);
        const m = Math.round(num(this.eval(args[1]!)));
        const n = args[2] ? Math.round(num(this.eval(args[2]))) : Infinity;
        const start = Math.max(m, 1);
        const end = Math.min(m + n, t.length + 1);
        return end > start ? t.slice(start - 1, end - 1) : '';
      }
      case 'index':
        return s(0).indexOf(s(1)) + 1;
      case 'tolower':
        return s(0).toLowerCase();
      case 'toupper':
        return s(0).toUpperCase();
      case 'int':
        return Math.trunc(num(this.eval(args[0]!)));
      case 'sprintf':
        return formatPrintf(
          s(0),
          args.slice(1).map((a) => str(this.eval(a))),
        ).text;
      case 'split': {
        const target = args[1];
        if (target?.kind !== 'var') throw new Error('split needs an array name');
        const sep = args[2]
          ? args[2].kind === 'regex'
            ? posixRegex(args[2].source, true)
            : str(this.eval(args[2]))
          : str(this.vars.get('FS') ?? ' ');
        const text = s(0);
        const parts =
          text === ''
            ? []
            : sep === ' '
              ? text.trim().split(/[ \t\n]+/)
              : text.split(typeof sep === 'string' && sep.length > 1 ? posixRegex(sep, true) : sep);
        const a = new Map<string, Val>();
        for (const [i, x] of parts.entries()) a.set(String(i + 1), input(x));
        this.arrays.set(target.name, a);
        return parts.length;
      }
      case 'match': {
        const m = posixRegex(args[1]!.kind === 'regex' ? args[1]!.source : s(1), true).exec(s(0));
        this.vars.set('RSTART', m ? m.index + 1 : 0);
        this.vars.set('RLENGTH', m ? m[0].length : -1);
        return m ? m.index + 1 : 0;
      }
      case 'sub':
      case 'gsub': {
        const re = posixRegex(args[0]!.kind === 'regex' ? args[0]!.source : s(0), true, name === 'gsub' ? 'g' : '');
        const rep = s(1);
        const target: Expr = args[2] ?? { kind: 'field', index: { kind: 'num', value: 0 } };
        let count = 0;
        const next = str(this.get(target)).replace(re, (m) => {
          count++;
          return rep.replace(/\\\\|\\&|&/g, (t) => (t === '&' ? m : t.slice(1)));
        });
        if (count > 0) this.set(target, next);
        return count;
      }
    }
    throw new Error(`function ${name} is not supported`);
  }

  exec(st: Stmt): void {
    switch (st.kind) {
      case 'print':
        this.out +=
          (st.args.length
            ? st.args.map((a) => str(this.eval(a))).join(str(this.vars.get('OFS') ?? ' '))
            : this.fields[0]) + str(this.vars.get('ORS') ?? '\n');
        return;
      case 'printf':
        this.out += formatPrintf(
          str(this.eval(st.args[0]!)),
          st.args.slice(1).map((a) => str(this.eval(a))),
        ).text;
        return;
      case 'expr':
        this.eval(st.e);
        return;
      case 'block':
        for (const s of st.body) this.exec(s);
        return;
      case 'if':
        if (truthy(this.eval(st.c))) this.exec(st.then);
        else if (st.else) this.exec(st.else);
        return;
      case 'while':
        for (let i = 0; truthy(this.eval(st.c)); i++) {
          if (i > 1_000_000) throw new Error('loop ran more than 1000000 times');
          this.exec(st.body);
        }
        return;
      case 'for':
        if (st.init) this.exec(st.init);
        for (let i = 0; !st.c || truthy(this.eval(st.c)); i++) {
          if (i > 1_000_000) throw new Error('loop ran more than 1000000 times');
          this.exec(st.body);
          if (st.step) this.exec(st.step);
        }
        return;
      case 'forin':
        for (const k of [...this.arr(st.arr).keys()]) {
          this.vars.set(st.v, k);
          this.exec(st.body);
        }
        return;
      case 'delete':
        if (st.key) this.arr(st.name).delete(str(this.eval(st.key)));
        else this.arrays.delete(st.name);
        return;
      case 'next':
        throw new Next();
      case 'exit':
        throw new Exit(st.code ? Math.trunc(num(this.eval(st.code))) : 0);
    }
  }

  run(input: string): number {
    const runAll = (which: 'BEGIN' | 'END') => {
      for (const it of this.items) if (it.pattern === which) for (const s of it.action ?? []) this.exec(s);
    };
    let code = 0;
    try {
      runAll('BEGIN');
      if (this.items.some((it) => it.pattern !== 'BEGIN')) {
        let nr = 0;
        for (const line of lines(input)) {
          this.vars.set('NR', ++nr);
          this.setRecord(line);
          try {
            for (const it of this.items) {
              if (it.pattern === 'BEGIN' || it.pattern === 'END') continue;
              if (it.pattern && !truthy(this.eval(it.pattern))) continue;
              if (it.action) for (const s of it.action) this.exec(s);
              else this.out += this.fields[0] + str(this.vars.get('ORS') ?? '\n');
            }
          } catch (e) {
            if (!(e instanceof Next)) throw e;
          }
        }
      }
    } catch (e) {
      if (!(e instanceof Exit)) throw e;
      code = e.code;
    }
    try {
      runAll('END');
    } catch (e) {
      if (!(e instanceof Exit)) throw e;
      code = e.code;
    }
    return code;
  }
}

function isNum(v: Val): boolean {
  return typeof v === 'number' || (v instanceof StrNum && (v.s === '' || NUMERIC.test(v.s)));
}
function arith(op: string, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      if (b === 0) throw new Error('division by zero');
      return a / b;
    case '%':
      if (b === 0) throw new Error('division by zero in %');
      return a % b;
    case '^':
      return a ** b;
  }
  throw new Error(`unsupported operator ${op}`);
}

export const awk: ShellCommand = {
  name: 'awk',
  summary:
    'awk subset: -F SEP, -v VAR=VAL, BEGIN/END, /re/ and expression patterns, $N NF NR, print/printf, ' +
    'if/while/for, arrays, length substr index split sub gsub tolower toupper int sprintf match (files → ' +
    'fs_read)',
  tools: (argv) => (parseArgs(argv, ['F', 'v', 'f']).operands.length > 1 ? ['fs_read'] : []),
  async run(ctx, argv) {
    const { flags, operands } = parseArgs(argv, ['F', 'v', 'f']);
    if (flags.has('f')) {
      ctx.err.write('awk: -f is not supported; pass the program as an argument\n');
      return 2;
    }
    const assigns: Array<[string, string]> = [];
    for (let i = 0; i < argv.length; i++)
      if (argv[i] === '-v' && argv[i + 1]?.includes('=')) {
        const a = argv[i + 1]!;
        assigns.push([a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]);
      }
    const [program, ...files] = operands;
    if (program === undefined) {
      ctx.err.write("usage: awk [-F SEP] [-v VAR=VAL] 'program' [FILE...]\n");
      return 2;
    }
    let items: Item[];
    try {
      items = parseAwk(program);
    } catch (e) {
      ctx.err.write(`awk: ${(e as Error).message}\n`);
      return 2;
    }
    const fs = flags.get('F');
    const r = new AwkRun(items, fs === undefined ? ' ' : fs === 't' || fs === '\\t' ? '\t' : fs, assigns);
    const text = items.every((it) => it.pattern === 'BEGIN') ? '' : await inputText(ctx, files);
    try {
      const code = r.run(text);
      ctx.out.write(r.out);
      return code;
    } catch (e) {
      ctx.out.write(r.out);
      ctx.err.write(`awk: ${(e as Error).message}\n`);
      return 2;
    }
  },
};
