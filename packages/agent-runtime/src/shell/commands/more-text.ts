import type { ShellCommand } from '../shell-types.js';
import { parseOptions, UsageError } from './options.js';
import type { OptionTable } from './options.js';
import { inputText, linesWithEnds, noTools, readsFiles } from './text.js';

const NO_OPTIONS: OptionTable = {};

export const tac: ShellCommand = {
  name: 'tac',
  summary: 'print lines in reverse order (files → fs_read)',
  options: NO_OPTIONS,
  tools: (argv) => readsFiles(parseOptions('tac', NO_OPTIONS, argv).operands),
  async run(ctx, argv) {
    const { operands } = parseOptions('tac', NO_OPTIONS, argv);
    // as GNU tac: each file on its own; a last line without a newline stays joined to the next one
    for (const f of operands.length ? operands : ['-']) {
      const text = await inputText(ctx, [f]);
      ctx.out.write(
        linesWithEnds(text)
          .reverse()
          .map((l) => (l.end ? `${l.line}\n` : l.line))
          .join(''),
      );
    }
    return 0;
  },
};

export const printenv: ShellCommand = {
  name: 'printenv',
  summary: "print the shell's variables, or the value of each NAME (status 1 if one is unset)",
  options: NO_OPTIONS,
  tools: noTools,
  async run(ctx, argv) {
    const { operands } = parseOptions('printenv', NO_OPTIONS, argv);
    const env = new Map(ctx.env());
    if (operands.length === 0) {
      ctx.out.write([...env].map(([k, v]) => `${k}=${v}\n`).join(''));
      return 0;
    }
    let status = 0;
    for (const name of operands) {
      const v = env.get(name);
      if (v === undefined) status = 1;
      else ctx.out.write(`${v}\n`);
    }
    return status;
  },
};

const FOLD_OPTIONS: OptionTable = { flags: 'sb', values: 'w', long: { width: { key: 'w', value: true } } };

export const fold: ShellCommand = {
  name: 'fold',
  summary: 'wrap lines at WIDTH columns (-w N, default 80; -s: at the last blank) (files → fs_read)',
  options: FOLD_OPTIONS,
  tools: (argv) => readsFiles(parseOptions('fold', FOLD_OPTIONS, argv).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseOptions('fold', FOLD_OPTIONS, argv);
    const w = flags.get('w') ?? '80';
    if (!/^[0-9]+$/.test(w) || Number(w) < 1) throw new UsageError(`fold: invalid number of columns: '${w}'`, 1);
    const width = Number(w);
    let out = '';
    for (const { line, end } of linesWithEnds(await inputText(ctx, operands))) {
      let rest = line;
      while (rest.length > width) {
        let cut = width;
        if (flags.has('s')) {
          const blank = rest.slice(0, width).lastIndexOf(' ');
          if (blank >= 0) cut = blank + 1;
        }
        out += `${rest.slice(0, cut)}\n`;
        rest = rest.slice(cut);
      }
      out += end ? `${rest}\n` : rest;
    }
    ctx.out.write(out);
    return 0;
  },
};

/** `expr`: integers and strings with GNU's precedence (| & comparisons + - * / % :). */
function evaluateExpr(args: readonly string[]): string {
  let i = 0;
  const isInt = (s: string) => /^-?[0-9]+$/.test(s);
  const int = (s: string) => {
    if (!isInt(s)) throw new UsageError('expr: non-integer argument', 2);
    return BigInt(s);
  };
  const atom = (): string => {
    const a = args[i++];
    if (a === undefined) throw new UsageError('expr: syntax error: missing argument', 2);
    if (a === '(') {
      const v = or();
      if (args[i++] !== ')') throw new UsageError("expr: syntax error: expecting ')'", 2);
      return v;
    }
    if (a === 'length') return String([...atom()].length);
    if (a === 'substr') {
      const s = atom();
      const p = Number(atom());
      const l = Number(atom());
      return p >= 1 && l >= 1 ? [...s].slice(p - 1, p - 1 + l).join('') : '';
    }
    if (a === 'index') {
      const s = atom();
      const chars = atom();
      const k = [...s].findIndex((c) => chars.includes(c));
      return String(k + 1);
    }
    return a;
  };
  const match = (): string => {
    let x = atom();
    while (args[i] === ':') {
      i++;
      const re = atom();
      let m: RegExpExecArray | null;
      try {
        // BRE: \( \) group, ( ) literal
        const js = re.replace(/\\([()])|([()])/g, (_m, e: string, lit: string) => (e ? e : `\\${lit}`));
        m = new RegExp(`^(?:${js})`).exec(x);
      } catch {
        throw new UsageError(`expr: invalid regular expression '${re}'`, 2);
      }
      x = m ? (m[1] ?? String(m[0].length)) : re.includes('\\(') ? '' : '0';
    }
    return x;
  };
  const mul = (): string => {
    let x = match();
    while (args[i] === '*' || args[i] === '/' || args[i] === '%') {
      const op = args[i++];
      const y = match();
      if ((op === '/' || op === '%') && int(y) === 0n) throw new UsageError('expr: division by zero', 2);
      x = String(op === '*' ? int(x) * int(y) : op === '/' ? int(x) / int(y) : int(x) % int(y));
    }
    return x;
  };
  const add = (): string => {
    let x = mul();
    while (args[i] === '+' || args[i] === '-') {
      const op = args[i++];
      const y = mul();
      x = String(op === '+' ? int(x) + int(y) : int(x) - int(y));
    }
    return x;
  };
  const cmp = (): string => {
    let x = add();
    while (['<', '<=', '=', '==', '!=', '>=', '>'].includes(args[i] ?? '')) {
      const op = args[i++]!;
      const y = add();
      const c = isInt(x) && isInt(y) ? Number(BigInt(x) - BigInt(y)) : x < y ? -1 : x > y ? 1 : 0;
      const r = { '<': c < 0, '<=': c <= 0, '=': c === 0, '==': c === 0, '!=': c !== 0, '>=': c >= 0, '>': c > 0 }[op];
      x = r ? '1' : '0';
    }
    return x;
  };
  const nullish = (s: string) => s === '' || /^-?0+$/.test(s);
  const and = (): string => {
    let x = cmp();
    while (args[i] === '&') {
      i++;
      const y = cmp();
      x = nullish(x) || nullish(y) ? '0' : x;
    }
    return x;
  };
  const or = (): string => {
    let x = and();
    while (args[i] === '|') {
      i++;
      const y = and();
      x = nullish(x) ? (nullish(y) ? '0' : y) : x;
    }
    return x;
  };
  const v = or();
  if (i < args.length) throw new UsageError(`expr: syntax error: unexpected argument '${args[i]}'`, 2);
  return v;
}

export const expr: ShellCommand = {
  name: 'expr',
  summary: 'evaluate an expression: + - * / % < <= = != >= > & | ( ), STR : REGEX, length, substr, index',
  tools: noTools,
  async run(ctx, argv) {
    const v = evaluateExpr(argv[0] === '--' ? argv.slice(1) : argv);
    ctx.out.write(`${v}\n`);
    return v === '' || /^-?0+$/.test(v) ? 1 : 0;
  },
};
