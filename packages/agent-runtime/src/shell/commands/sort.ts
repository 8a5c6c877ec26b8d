import type { ShellCommand } from '../shell-types.js';
import { parseOptions, UsageError } from './options.js';
import type { OptionTable } from './options.js';
import { InputError, inputText, lines, readsFiles } from './text.js';

const SORT_OPTIONS: OptionTable = {
  flags: 'rnuhMcfbs',
  values: 'kt',
  long: {
    reverse: { key: 'r' },
    'numeric-sort': { key: 'n' },
    unique: { key: 'u' },
    'human-numeric-sort': { key: 'h' },
    'month-sort': { key: 'M' },
    check: { key: 'c' },
    'ignore-case': { key: 'f' },
    'ignore-leading-blanks': { key: 'b' },
    stable: { key: 's' },
    key: { key: 'k', value: true },
    'field-separator': { key: 't', value: true },
  },
};

/** How one key compares: its own letters, or the command's when it has none (GNU). */
interface KeyOrder {
  readonly n: boolean;
  readonly h: boolean;
  readonly M: boolean;
  readonly f: boolean;
  readonly b: boolean;
  readonly r: boolean;
}
interface SortKey extends KeyOrder {
  readonly startField: number;
  readonly startChar: number;
  readonly endField: number;
  readonly endChar: number;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const SUFFIX = 'KMGTPEZY';

function parseKey(spec: string, global: KeyOrder): SortKey {
  const m = /^([0-9]+)(?:\.([0-9]+))?([bfhnMr]*)(?:,([0-9]+)(?:\.([0-9]+))?([bfhnMr]*))?$/.exec(spec);
  if (!m || Number(m[1]) === 0)
    throw new UsageError(`sort: invalid key specification '${spec}' (F[.C][bfhnMr][,F[.C]])`);
  const letters = `${m[3] ?? ''}${m[6] ?? ''}`;
  const order = letters
    ? {
        n: letters.includes('n'),
        h: letters.includes('h'),
        M: letters.includes('M'),
        f: letters.includes('f'),
        b: letters.includes('b'),
        r: letters.includes('r'),
      }
    : global;
  return {
    ...order,
    startField: Number(m[1]),
    startChar: Number(m[2] ?? 1),
    endField: m[4] ? Number(m[4]) : Infinity,
    endChar: m[5] ? Number(m[5]) : 0,
  };
}

/** Field starts of a line: with -t each separator ends a field; otherwise a field is its leading blanks and a word. */
function fieldsOf(line: string, sep: string | undefined): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (sep !== undefined) {
    let start = 0;
    for (;;) {
      const i = line.indexOf(sep, start);
      if (i < 0) {
        out.push([start, line.length]);
        return out;
      }
      out.push([start, i]);
      start = i + sep.length;
    }
  }
  const re = /[ \t]*[^ \t]+/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push([m.index, m.index + m[0].length]);
  if (out.length === 0) out.push([0, line.length]);
  return out;
}

function keyText(line: string, k: SortKey, sep: string | undefined): string {
  const f = fieldsOf(line, sep);
  const sf = f[k.startField - 1];
  if (!sf) return '';
  let startBase = sf[0];
  // leading blanks belong to the field; -b skips them
  if (k.b) while (startBase < sf[1] && /[ \t]/.test(line[startBase]!)) startBase++;
  const start = Math.min(sf[1], startBase + k.startChar - 1);
  let end = line.length;
  if (k.endField !== Infinity) {
    const ef = f[k.endField - 1];
    if (ef) end = k.endChar > 0 ? Math.min(ef[1], ef[0] + k.endChar) : ef[1];
  }
  return line.slice(start, Math.max(start, end));
}

function numericValue(s: string): number {
  const m = /^[ \t]*(-?[0-9]*\.?[0-9]+|-?[0-9]+)/.exec(s);
  return m ? Number(m[1]) : 0;
}
function humanValue(s: string): number {
  const m = /^[ \t]*(-?[0-9]*\.?[0-9]+)([KMGTPEZY]?)/i.exec(s);
  if (!m) return 0;
  const power = m[2] ? SUFFIX.indexOf(m[2].toUpperCase()) + 1 : 0;
  return Number(m[1]) * 1000 ** power;
}
const monthValue = (s: string) => MONTHS.indexOf(s.trim().slice(0, 3).toUpperCase()) + 1;

function compareBy(a: string, b: string, o: KeyOrder): number {
  let r: number;
  if (o.n) r = numericValue(a) - numericValue(b);
  else if (o.h) r = humanValue(a) - humanValue(b);
  else if (o.M) r = monthValue(a) - monthValue(b);
  else {
    const x = o.b ? a.replace(/^[ \t]+/, '') : a;
    const y = o.b ? b.replace(/^[ \t]+/, '') : b;
    const xf = o.f ? x.toUpperCase() : x;
    const yf = o.f ? y.toUpperCase() : y;
    r = xf < yf ? -1 : xf > yf ? 1 : 0;
  }
  return o.r ? -r : r;
}

export const sort: ShellCommand = {
  name: 'sort',
  summary: 'sort lines (C locale): -r -n -h -M -f -b -u -s -c, -k F[.C][opts][,F[.C]] keys, -t SEP (files → fs_read)',
  options: SORT_OPTIONS,
  tools: (argv) => readsFiles(parseOptions('sort', SORT_OPTIONS, argv).operands),
  async run(ctx, argv) {
    const { flags, all, operands } = parseOptions('sort', SORT_OPTIONS, argv);
    const global: KeyOrder = {
      n: flags.has('n'),
      h: flags.has('h'),
      M: flags.has('M'),
      f: flags.has('f'),
      b: flags.has('b'),
      r: false,
    };
    const sep = flags.get('t');
    if (sep !== undefined && sep.length !== 1) throw new UsageError('sort: multi-character tab');
    const keys = all.filter(([k]) => k === 'k').map(([, v]) => parseKey(v, global));
    const reverse = flags.has('r');
    const byKeys = (a: string, b: string): number => {
      if (keys.length === 0) return compareBy(a, b, global);
      for (const k of keys) {
        const r = compareBy(keyText(a, k, sep), keyText(b, k, sep), k);
        if (r !== 0) return r;
      }
      return 0;
    };
    const ordered = (a: string, b: string): number => {
      let r = byKeys(a, b);
      if (r === 0 && !flags.has('u') && !flags.has('s')) r = a < b ? -1 : a > b ? 1 : 0; // last resort: bytes
      return reverse ? -r : r;
    };
    let text: string;
    try {
      text = await inputText(ctx, operands);
    } catch (e) {
      if (e instanceof InputError) throw new UsageError(`sort: cannot read: ${e.message}`, 2);
      throw e;
    }
    const l = lines(text);
    if (flags.has('c')) {
      for (let i = 1; i < l.length; i++) {
        const r = ordered(l[i - 1]!, l[i]!);
        if (r > 0 || (flags.has('u') && r === 0)) {
          ctx.err.write(`sort: ${operands[0] ?? '-'}:${i + 1}: disorder: ${l[i]}\n`);
          return 1;
        }
      }
      return 0;
    }
    const sorted = l.map((line, i) => ({ line, i })).sort((x, y) => ordered(x.line, y.line) || x.i - y.i);
    const out: string[] = [];
    for (const { line } of sorted) {
      if (flags.has('u') && out.length > 0 && byKeys(out[out.length - 1]!, line) === 0) continue;
      out.push(line);
    }
    ctx.out.write(out.map((x) => `${x}\n`).join(''));
    return 0;
  },
};

const UNIQ_OPTIONS: OptionTable = {
  flags: 'cdui',
  long: { count: { key: 'c' }, repeated: { key: 'd' }, unique: { key: 'u' }, 'ignore-case': { key: 'i' } },
};

export const uniq: ShellCommand = {
  name: 'uniq',
  summary: 'drop adjacent duplicate lines: -c count, -d only repeated, -u only unique, -i ignore case',
  options: UNIQ_OPTIONS,
  tools: (argv) => readsFiles(parseOptions('uniq', UNIQ_OPTIONS, argv).operands.slice(0, 1)),
  async run(ctx, argv) {
    const { flags, operands } = parseOptions('uniq', UNIQ_OPTIONS, argv);
    if (operands.length > 1) throw new UsageError('uniq: writing to an output file is not supported; use >');
    const key = flags.has('i') ? (l: string) => l.toLowerCase() : (l: string) => l;
    const groups: Array<[string, number]> = [];
    for (const l of lines(await inputText(ctx, operands))) {
      const last = groups[groups.length - 1];
      if (last && key(last[0]) === key(l)) last[1]++;
      else groups.push([l, 1]);
    }
    const picked = groups.filter(([, c]) => (flags.has('d') ? c > 1 : true) && (flags.has('u') ? c === 1 : true));
    ctx.out.write(picked.map(([l, c]) => (flags.has('c') ? `${String(c).padStart(7)} ${l}\n` : `${l}\n`)).join(''));
    return 0;
  },
};
