import type { CommandContext, ShellCommand } from '../shell-types.js';
import { fileContent } from '../file-content.js';
import { compareIntegers } from '../integer-compare.js';
import { formatPrintf, printfEscapes } from './printf-format.js';
import { UsageError, parseOptions } from './options.js';
import type { OptionTable } from './options.js';

/** Splits `-abc` style flags from operands; `--` ends flags. Flags in `withValue` take the next word. */
export function parseArgs(
  argv: readonly string[],
  withValue: readonly string[] = [],
): { flags: Map<string, string>; operands: string[] } {
  const flags = new Map<string, string>();
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (/^-[0-9]+$/.test(a)) {
      flags.set('n', a.slice(1));
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      const letters = a.slice(1);
      for (let j = 0; j < letters.length; j++) {
        const f = letters[j]!;
        if (withValue.includes(f)) {
          flags.set(f, letters.slice(j + 1) || argv[++i] || '');
          break;
        }
        flags.set(f, '');
      }
    } else operands.push(a);
  }
  return { flags, operands };
}

/** A file a command could not read, worded as GNU tools word it. */
export class InputError extends Error {}

const MISSING = new Set(['ADF_NOT_FOUND', 'FS_NOT_FOUND']);

/** Reads one file through fs_read; a missing file is `PATH: No such file or directory`. */
export async function readInput(ctx: CommandContext, path: string): Promise<string> {
  try {
    return fileContent(await ctx.tool('fs_read', { path }));
  } catch (e) {
    if (MISSING.has(String((e as { code?: unknown })?.code)))
      throw new InputError(`${path}: No such file or directory`);
    throw e;
  }
}

/** Reads the named files through fs_read, or stdin when there are none (or `-`). */
export async function inputText(ctx: CommandContext, files: readonly string[]): Promise<string> {
  if (files.length === 0) return ctx.stdin;
  let s = '';
  for (const f of files) s += f === '-' ? ctx.stdin : await readInput(ctx, f);
  return s;
}

/** Lines of a text with whether each ended in a newline (only the last may not). */
export function linesWithEnds(text: string): Array<{ line: string; end: boolean }> {
  return lines(text).map((line, i, l) => ({ line, end: i < l.length - 1 || text.endsWith('\n') }));
}

/** Lines of a text, without the empty string after a final newline. */
export function lines(text: string): string[] {
  if (text === '') return [];
  const l = text.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

export const readsFiles = (operands: readonly string[]) =>
  operands.filter((o) => o !== '-').length > 0 ? ['fs_read'] : [];

export const noTools = () => [] as string[];

export const echo: ShellCommand = {
  name: 'echo',
  summary: 'print arguments (-n: no newline, -e: escapes)',
  tools: noTools,
  async run(ctx, argv) {
    let i = 0;
    let newline = true;
    let escapes = false;
    while (i < argv.length && /^-[neE]+$/.test(argv[i]!)) {
      if (argv[i]!.includes('n')) newline = false;
      if (argv[i]!.includes('e')) escapes = true;
      i++;
    }
    let text = argv.slice(i).join(' ');
    if (escapes) {
      const r = printfEscapes(text);
      text = r.text;
      if (r.stop) newline = false;
    }
    ctx.out.write(newline ? `${text}\n` : text);
    return 0;
  },
};

export const printf: ShellCommand = {
  name: 'printf',
  summary:
    'formatted output: %s %d %i %u %o %x %X %c %b %f %e %g %%, flags -0+ #, width and precision; -v VAR stores it',
  tools: noTools,
  async run(ctx, argv) {
    const [format, ...rest] = argv[0] === '--' ? argv.slice(1) : argv;
    if (format === undefined) {
      ctx.err.write('printf: usage: printf [-v var] format [arguments]\n');
      return 2;
    }
    const r = formatPrintf(format, rest, true);
    ctx.out.write(r.text);
    if (r.error !== undefined) {
      ctx.err.write(`printf: ${r.error}: invalid number\n`);
      return 1;
    }
    return 0;
  },
};

export const trueCmd: ShellCommand = { name: 'true', summary: 'exit 0', tools: noTools, run: async () => 0 };
export const colon: ShellCommand = { name: ':', summary: 'exit 0', tools: noTools, run: async () => 0 };
export const falseCmd: ShellCommand = { name: 'false', summary: 'exit 1', tools: noTools, run: async () => 1 };

const CAT_OPTIONS: OptionTable = {
  flags: 'nbEsA',
  long: {
    number: { key: 'n' },
    'number-nonblank': { key: 'b' },
    'show-ends': { key: 'E' },
    'squeeze-blank': { key: 's' },
  },
};

export const cat: ShellCommand = {
  name: 'cat',
  summary:
    'print files or stdin: -n number lines, -b number non-blank lines, -E show $ at ends, -s squeeze (→ fs_read)',
  options: CAT_OPTIONS,
  tools: (argv) => readsFiles(parseOptions('cat', CAT_OPTIONS, argv).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseOptions('cat', CAT_OPTIONS, argv);
    if (flags.has('A')) throw new UsageError('cat: -A (show all) is not supported; use -E');
    // as GNU cat: a missing file is reported and skipped, the others are still printed
    let text = '';
    let status = 0;
    for (const f of operands.length ? operands : ['-']) {
      try {
        text += f === '-' ? ctx.stdin : await readInput(ctx, f);
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        ctx.err.write(`cat: ${e.message}\n`);
        status = 1;
      }
    }
    if (flags.size === 0) {
      ctx.out.write(text);
      return status;
    }
    let n = 0;
    let out = '';
    let blank = false;
    for (const { line, end } of linesWithEnds(text)) {
      if (flags.has('s') && line === '' && end) {
        if (blank) continue;
        blank = true;
      } else blank = false;
      const numbered = flags.has('b') ? line !== '' : flags.has('n');
      out += `${numbered ? `${String(++n).padStart(6)}\t` : ''}${line}${end ? (flags.has('E') ? '$\n' : '\n') : ''}`;
    }
    ctx.out.write(out);
    return status;
  },
};

const GREP_OPTIONS: OptionTable = {
  flags: 'ivncqoFE',
  values: 'e',
  long: {
    'ignore-case': { key: 'i' },
    'invert-match': { key: 'v' },
    'line-number': { key: 'n' },
    count: { key: 'c' },
    quiet: { key: 'q' },
    'only-matching': { key: 'o' },
    'fixed-strings': { key: 'F' },
    'extended-regexp': { key: 'E' },
    regexp: { key: 'e', value: true },
  },
};

export const grep: ShellCommand = {
  name: 'grep',
  summary: 'match lines (-i -v -n -c -q -o -F -E; files → fs_read)',
  options: GREP_OPTIONS,
  tools(argv) {
    const { flags, operands } = parseOptions('grep', GREP_OPTIONS, argv);
    return readsFiles(operands.slice(flags.has('e') ? 0 : 1));
  },
  async run(ctx, argv) {
    const { flags, operands: words } = parseOptions('grep', GREP_OPTIONS, argv);
    const operands = [...words];
    const pattern = flags.get('e') ?? operands.shift();
    if (pattern === undefined) {
      ctx.err.write('usage: grep [-ivncqoFE] PATTERN [FILE...]\n');
      return 2;
    }
    let re: RegExp;
    try {
      re = new RegExp(
        flags.has('F') ? pattern.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&') : pattern,
        flags.has('i') ? 'gi' : 'g',
      );
    } catch {
      ctx.err.write(`grep: invalid pattern ${JSON.stringify(pattern)}\n`);
      return 2;
    }
    const text = await inputText(ctx, operands);
    let count = 0;
    lines(text).forEach((line, i) => {
      re.lastIndex = 0;
      const hit = re.test(line) !== flags.has('v');
      if (!hit) return;
      count++;
      if (flags.has('q') || flags.has('c')) return;
      if (flags.has('o') && !flags.has('v')) {
        re.lastIndex = 0;
        for (const m of line.matchAll(re)) if (m[0] !== '') ctx.out.write(`${m[0]}\n`);
        return;
      }
      ctx.out.write(flags.has('n') ? `${i + 1}:${line}\n` : `${line}\n`);
    });
    if (flags.has('c')) ctx.out.write(`${count}\n`);
    return count > 0 ? 0 : 1;
  },
};

const HEAD_TAIL_OPTIONS: OptionTable = { values: 'n', numeric: 'n', long: { lines: { key: 'n', value: true } } };

const headTail = (name: 'head' | 'tail'): ShellCommand => ({
  name,
  summary:
    name === 'head'
      ? 'first lines (-n N; -n -N: all but the last N) (files → fs_read)'
      : 'last lines (-n N; -n +N: from line N on) (files → fs_read)',
  options: HEAD_TAIL_OPTIONS,
  tools: (argv) => readsFiles(parseOptions(name, HEAD_TAIL_OPTIONS, argv).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseOptions(name, HEAD_TAIL_OPTIONS, argv);
    const spec = flags.get('n') ?? '10';
    const m = /^([+-]?)([0-9]+)$/.exec(spec);
    if (!m) throw new UsageError(`${name}: invalid number of lines: '${spec}'`, 1);
    const count = Number(m[2]);
    const all = linesWithEnds(await inputText(ctx, operands));
    let pick: typeof all;
    if (name === 'head') pick = m[1] === '-' ? all.slice(0, Math.max(0, all.length - count)) : all.slice(0, count);
    else if (m[1] === '+') pick = all.slice(Math.max(0, count - 1));
    else pick = count === 0 ? [] : all.slice(-count);
    // a last line without a newline keeps its ending, as in GNU
    ctx.out.write(pick.map((l) => (l.end ? `${l.line}\n` : l.line)).join(''));
    return 0;
  },
});
export const head = headTail('head');
export const tail = headTail('tail');

const WC_OPTIONS: OptionTable = {
  flags: 'lwc',
  long: { lines: { key: 'l' }, words: { key: 'w' }, bytes: { key: 'c' } },
};

export const wc: ShellCommand = {
  name: 'wc',
  summary: 'count lines, words, bytes (-l -w -c), with GNU column widths and a total (files → fs_read)',
  options: WC_OPTIONS,
  tools: (argv) => readsFiles(parseOptions('wc', WC_OPTIONS, argv).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseOptions('wc', WC_OPTIONS, argv);
    const names = operands.length ? operands : [undefined];
    const chosen = (['l', 'w', 'c'] as const).filter((k) => flags.has(k));
    const keys = chosen.length ? chosen : (['l', 'w', 'c'] as const);
    const rows: Array<{ name: string | undefined; n: Record<'l' | 'w' | 'c', number> }> = [];
    for (const name of names) {
      const text = name === undefined ? ctx.stdin : await inputText(ctx, [name]);
      rows.push({
        name,
        n: {
          l: (text.match(/\n/g) ?? []).length,
          w: text.split(/\s+/).filter(Boolean).length,
          c: Buffer.byteLength(text),
        },
      });
    }
    if (rows.length > 1)
      rows.push({
        name: 'total',
        n: {
          l: rows.reduce((s, r) => s + r.n.l, 0),
          w: rows.reduce((s, r) => s + r.n.w, 0),
          c: rows.reduce((s, r) => s + r.n.c, 0),
        },
      });
    // GNU: one input and one count is unpadded; stdin pads to 7; files pad to the digits of their total size
    const stdin = names.some((n) => n === undefined || n === '-');
    const total = rows[rows.length - 1]!.n.c;
    const width = names.length === 1 && keys.length === 1 ? 1 : stdin ? 7 : Math.max(1, String(total).length);
    ctx.out.write(
      rows
        .map(
          (r) =>
            `${keys.map((k) => String(r.n[k]).padStart(width)).join(' ')}${r.name === undefined ? '' : ` ${r.name}`}\n`,
        )
        .join(''),
    );
    return 0;
  },
};

/** `test` / `[`: strings, integers, and `-e`/`-f` through fs_list. */
const testTools = (argv: readonly string[]) =>
  argv.some((a) => a === '-e' || a === '-f' || a === '-s') ? ['fs_read'] : [];
async function evaluateTest(ctx: CommandContext, args: string[]): Promise<boolean> {
  if (args[0] === '!') return !(await evaluateTest(ctx, args.slice(1)));
  if (args.length === 0) return false;
  if (args.length === 1) return args[0] !== '';
  if (args.length === 2) {
    const [op, v = ''] = args;
    if (op === '-z') return v === '';
    if (op === '-n') return v !== '';
    if (op === '-e' || op === '-f' || op === '-s') {
      try {
        const c = fileContent(await ctx.tool('fs_read', { path: v }));
        return op === '-s' ? c.length > 0 : true;
      } catch {
        return false;
      }
    }
    throw new Error(`unknown unary operator ${op}`);
  }
  const [a = '', op, b = ''] = args;
  const numeric = compareIntegers(op, a, b, (x) => new Error(`integer expression expected: ${x}`));
  if (numeric !== undefined) return numeric;
  switch (op) {
    case '=':
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default:
      throw new Error(`unknown binary operator ${op}`);
  }
}
export const test: ShellCommand = {
  name: 'test',
  summary: 'conditions: -z -n = != -eq -lt …, -e/-f/-s (→ fs_read)',
  tools: testTools,
  async run(ctx, argv) {
    try {
      return (await evaluateTest(ctx, [...argv])) ? 0 : 1;
    } catch (e) {
      ctx.err.write(`test: ${(e as Error).message}\n`);
      return 2;
    }
  },
};
export const bracket: ShellCommand = {
  name: '[',
  summary: 'same as test; needs a closing ]',
  tools: testTools,
  async run(ctx, argv) {
    if (argv[argv.length - 1] !== ']') {
      ctx.err.write('[: missing ]\n');
      return 2;
    }
    return test.run(ctx, argv.slice(0, -1));
  },
};

export const seq: ShellCommand = {
  name: 'seq',
  summary: 'print a sequence of integers (at most 100000)',
  tools: noTools,
  async run(ctx, argv) {
    const nums = argv.map(Number);
    const [first, last] = nums.length === 1 ? [1, nums[0]!] : [nums[0]!, nums[nums.length - 1]!];
    const step = nums.length === 3 ? nums[1]! : 1;
    if (!Number.isFinite(first) || !Number.isFinite(last) || step === 0 || Math.abs((last - first) / step) > 100_000) {
      ctx.err.write('seq: bad range\n');
      return 1;
    }
    let s = '';
    for (let i = first; step > 0 ? i <= last : i >= last; i += step) s += `${i}\n`;
    ctx.out.write(s);
    return 0;
  },
};
