import type { ShellCommand } from '../shell-types.js';
import { inputText, lines, noTools, parseArgs, readsFiles } from './text.js';
import { UsageError, parseOptions } from './options.js';
import type { OptionTable } from './options.js';

/** Parses a cut list like `1,3-5,7-`: returns a predicate over 1-based positions. */
function cutList(spec: string): ((n: number) => boolean) | undefined {
  const ranges: Array<[number, number]> = [];
  for (const part of spec.split(',')) {
    const m = /^([0-9]*)(-?)([0-9]*)$/.exec(part);
    if (!m || (m[1] === '' && m[3] === '')) return undefined;
    const a = m[1] ? Number(m[1]) : 1;
    const b = m[2] ? (m[3] ? Number(m[3]) : Infinity) : a;
    ranges.push([a, b]);
  }
  return (n) => ranges.some(([a, b]) => n >= a && n <= b);
}

export const cut: ShellCommand = {
  name: 'cut',
  summary: 'select fields (-d DELIM -f LIST, -s) or characters (-c LIST) of each line (files → fs_read)',
  tools: (argv) => readsFiles(parseArgs(argv, ['d', 'f', 'c']).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseArgs(argv, ['d', 'f', 'c']);
    const spec = flags.get('f') ?? flags.get('c');
    const pick = spec === undefined ? undefined : cutList(spec);
    if (!pick) {
      ctx.err.write('usage: cut -f LIST [-d DELIM] | -c LIST [FILE...]\n');
      return 1;
    }
    const delim = flags.get('d') ?? '\t';
    if (delim.length !== 1) {
      ctx.err.write('cut: the delimiter must be a single character\n');
      return 1;
    }
    let out = '';
    for (const line of lines(await inputText(ctx, operands))) {
      if (flags.has('c')) {
        out += `${[...line].filter((_c, i) => pick(i + 1)).join('')}\n`;
        continue;
      }
      if (!line.includes(delim)) {
        if (!flags.has('s')) out += `${line}\n`;
        continue;
      }
      out += `${line
        .split(delim)
        .filter((_f, i) => pick(i + 1))
        .join(delim)}\n`;
    }
    ctx.out.write(out);
    return 0;
  },
};

export const paste: ShellCommand = {
  name: 'paste',
  summary: 'join lines of files side by side (-d DELIMS, -s serial; - is stdin) (→ fs_read)',
  tools: (argv) => readsFiles(parseArgs(argv, ['d']).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseArgs(argv, ['d']);
    const delims = (flags.get('d') ?? '\t').replace(/\\t/g, '\t').replace(/\\n/g, '\n') || '\t';
    const inputs: string[][] = [];
    for (const f of operands.length ? operands : ['-']) inputs.push(lines(await inputText(ctx, [f])));
    const join = (cells: readonly string[]) =>
      cells.map((c, i) => (i === 0 ? c : delims[(i - 1) % delims.length] + c)).join('');
    if (flags.has('s')) {
      ctx.out.write(inputs.map((l) => `${join(l)}\n`).join(''));
      return 0;
    }
    const n = Math.max(0, ...inputs.map((l) => l.length));
    let out = '';
    for (let i = 0; i < n; i++) out += `${join(inputs.map((l) => l[i] ?? ''))}\n`;
    ctx.out.write(out);
    return 0;
  },
};

export const comm: ShellCommand = {
  name: 'comm',
  summary: 'compare two sorted files: lines only in 1, only in 2, in both (-1 -2 -3 hide) (→ fs_read)',
  tools: (argv) => readsFiles(argv.filter((a) => !/^-[123]+$/.test(a))),
  async run(ctx, argv) {
    const flags = new Set(argv.filter((a) => /^-[123]+$/.test(a)).flatMap((a) => [...a.slice(1)]));
    const operands = argv.filter((a) => !/^-[123]+$/.test(a));
    if (operands.length !== 2) {
      ctx.err.write('usage: comm [-123] FILE1 FILE2\n');
      return 1;
    }
    const a = lines(await inputText(ctx, [operands[0]!]));
    const b = lines(await inputText(ctx, [operands[1]!]));
    const cols = [!flags.has('1'), !flags.has('2'), !flags.has('3')];
    const col = (k: number, text: string) =>
      cols[k] ? `${'\t'.repeat(cols.slice(0, k).filter(Boolean).length)}${text}\n` : '';
    let out = '';
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out += col(0, a[i++]!);
      else if (i >= a.length || b[j]! < a[i]!) out += col(1, b[j++]!);
      else {
        out += col(2, a[i]!);
        i++;
        j++;
      }
    }
    ctx.out.write(out);
    // as GNU comm: unsorted input is reported after the output, with status 1
    for (const [k, l] of [a, b].entries())
      if (l.some((x, i) => i > 0 && l[i - 1]! > x)) {
        ctx.err.write(`comm: file ${k + 1} is not in sorted order\n`);
        return 1;
      }
    return 0;
  },
};

const NL_OPTIONS: OptionTable = {
  values: 'bnsvwi',
  long: {
    'body-numbering': { key: 'b', value: true },
    'number-format': { key: 'n', value: true },
    'number-separator': { key: 's', value: true },
    'starting-line-number': { key: 'v', value: true },
    'number-width': { key: 'w', value: true },
    'line-increment': { key: 'i', value: true },
  },
};

const integer = (name: string, what: string, v: string | undefined, fallback: number, min: number): number => {
  if (v === undefined) return fallback;
  if (!/^-?[0-9]+$/.test(v) || Number(v) < min) throw new UsageError(`${name}: invalid ${what}: '${v}'`, 1);
  return Number(v);
};

export const nl: ShellCommand = {
  name: 'nl',
  summary:
    'number lines: -b a|t|n (all, non-empty, none), -n ln|rn|rz, -s SEP, -v START, -i STEP, -w WIDTH (files → fs_read)',
  options: NL_OPTIONS,
  tools: (argv) => readsFiles(parseOptions('nl', NL_OPTIONS, argv).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseOptions('nl', NL_OPTIONS, argv);
    const body = flags.get('b') ?? 't';
    if (body !== 'a' && body !== 't' && body !== 'n')
      throw new UsageError(
        `nl: invalid body numbering style: '${body}' (a, t or n; regular expressions are not supported)`,
        1,
      );
    const format = flags.get('n') ?? 'rn';
    if (format !== 'ln' && format !== 'rn' && format !== 'rz')
      throw new UsageError(`nl: invalid line numbering format: '${format}'`, 1);
    const sep = flags.get('s') ?? '\t';
    const width = integer('nl', 'line number field width', flags.get('w'), 6, 1);
    let n = integer('nl', 'starting line number', flags.get('v'), 1, -Infinity);
    const step = integer('nl', 'line number increment', flags.get('i'), 1, -Infinity);
    const num = (k: number) =>
      format === 'ln'
        ? String(k).padEnd(width)
        : format === 'rz'
          ? (k < 0 ? '-' : '') + String(Math.abs(k)).padStart(width - (k < 0 ? 1 : 0), '0')
          : String(k).padStart(width);
    let out = '';
    for (const line of lines(await inputText(ctx, operands))) {
      const numbered = body === 'a' || (body === 't' && line !== '');
      const nl = '\n'; // GNU nl ends every line, the last one too
      if (numbered) {
        out += `${num(n)}${sep}${line}${nl}`;
        n += step;
      } else out += `${' '.repeat(width + sep.length)}${line}${nl}`;
    }
    ctx.out.write(out);
    return 0;
  },
};

export const rev: ShellCommand = {
  name: 'rev',
  summary: 'reverse the characters of each line (files → fs_read)',
  tools: (argv) => readsFiles(parseArgs(argv).operands),
  async run(ctx, argv) {
    ctx.out.write(
      lines(await inputText(ctx, parseArgs(argv).operands))
        .map((l) => `${[...l].reverse().join('')}\n`)
        .join(''),
    );
    return 0;
  },
};

const BASENAME_OPTIONS: OptionTable = {
  flags: 'az',
  values: 's',
  long: { multiple: { key: 'a' }, suffix: { key: 's', value: true }, zero: { key: 'z' } },
};

export const basename: ShellCommand = {
  name: 'basename',
  summary: 'last component of a path, minus an optional SUFFIX; -a NAME…: each; -s SUF: each, minus SUF',
  options: BASENAME_OPTIONS,
  tools: noTools,
  async run(ctx, argv) {
    const { flags, operands } = parseOptions('basename', BASENAME_OPTIONS, argv);
    if (operands.length === 0) throw new UsageError('basename: missing operand', 1);
    const multiple = flags.has('a') || flags.has('s');
    if (!multiple && operands.length > 2) throw new UsageError(`basename: extra operand '${operands[2]}'`, 1);
    const suffix = flags.get('s') ?? (multiple ? undefined : operands[1]);
    const names = multiple ? operands : operands.slice(0, 1);
    const end = flags.has('z') ? '\0' : '\n';
    for (const path of names) {
      const trimmed = path.replace(/\/+$/, '');
      let base = trimmed === '' ? (path.startsWith('/') ? '/' : '') : trimmed.slice(trimmed.lastIndexOf('/') + 1);
      if (suffix && base !== suffix && base.endsWith(suffix)) base = base.slice(0, -suffix.length);
      ctx.out.write(`${base}${end}`);
    }
    return 0;
  },
};

export const dirname: ShellCommand = {
  name: 'dirname',
  summary: 'a path without its last component',
  tools: noTools,
  async run(ctx, argv) {
    if (argv.length === 0) {
      ctx.err.write('dirname: missing operand\n');
      return 1;
    }
    for (const path of argv) {
      const trimmed = path.replace(/\/+$/, '');
      const i = trimmed.lastIndexOf('/');
      const parent =
        i < 0 ? (path.startsWith('/') ? '/' : '.') : i === 0 ? '/' : trimmed.slice(0, i).replace(/\/+$/, '');
      ctx.out.write(`${parent || '/'}\n`);
    }
    return 0;
  },
};
