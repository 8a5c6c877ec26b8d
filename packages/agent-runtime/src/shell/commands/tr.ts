import type { ShellCommand } from '../shell-types.js';
import { parseOptions, UsageError } from './options.js';
import type { OptionTable } from './options.js';
import { printfEscapes } from './printf-format.js';
import { noTools } from './text.js';

const TR_OPTIONS: OptionTable = {
  flags: 'cCds',
  long: { complement: { key: 'c' }, delete: { key: 'd' }, 'squeeze-repeats': { key: 's' } },
};

const CLASSES: Readonly<Record<string, string>> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \t\n\r\f\v',
  blank: ' \t',
  punct: '!-/:-@[-`{-~',
  xdigit: '0-9A-Fa-f',
};

/** A tr SET as its characters, in order: escapes, [:class:] and a-z ranges. */
function expandSet(set: string): string {
  const withClasses = printfEscapes(set).text.replace(/\[:([a-z]+):\]/g, (m, c: string) => {
    const v = CLASSES[c];
    if (v === undefined) throw new UsageError(`tr: invalid character class '${c}'`, 1);
    return v ?? m;
  });
  return withClasses.replace(/(.)-(.)/gs, (_m, a: string, b: string) => {
    if (b.charCodeAt(0) < a.charCodeAt(0))
      throw new UsageError(`tr: range-endpoints of '${a}-${b}' are in reverse collating sequence order`, 1);
    let s = '';
    for (let c = a.charCodeAt(0); c <= b.charCodeAt(0); c++) s += String.fromCharCode(c);
    return s;
  });
}

export const tr: ShellCommand = {
  name: 'tr',
  summary: 'translate, delete (-d) or squeeze (-s) characters of stdin; -c/-C: the complement of SET1',
  options: TR_OPTIONS,
  tools: noTools,
  async run(ctx, argv) {
    const { flags, operands } = parseOptions('tr', TR_OPTIONS, argv);
    const complement = flags.has('c') || flags.has('C');
    const del = flags.has('d');
    const squeeze = flags.has('s');
    const translating = !del && operands.length >= 2;
    if (operands.length === 0) throw new UsageError('tr: missing operand', 1);
    if (!del && !squeeze && operands.length < 2) throw new UsageError(`tr: missing operand after '${operands[0]}'`, 1);
    if (operands.length > (del && !squeeze ? 1 : 2))
      throw new UsageError(`tr: extra operand '${operands[del && !squeeze ? 1 : 2]}'`, 1);
    const set1 = new Set(expandSet(operands[0]!));
    const from = expandSet(operands[0]!);
    const to = operands[1] !== undefined ? expandSet(operands[1]) : '';
    if (translating && to === '') throw new UsageError('tr: when not truncating set1, string2 must be non-empty', 1);
    const inSet1 = (ch: string) => set1.has(ch) !== complement;
    const squeezeSet = new Set(translating || (del && squeeze) ? to : from);
    const inSqueeze = (ch: string) => (translating || del ? squeezeSet.has(ch) : inSet1(ch));
    let out = '';
    let last = '';
    for (const ch of ctx.stdin) {
      let c: string | undefined = ch;
      if (del && inSet1(ch)) c = undefined;
      else if (translating && inSet1(ch)) {
        const i = complement ? to.length - 1 : from.lastIndexOf(ch);
        c = to[Math.min(i, to.length - 1)] ?? '';
      }
      if (c === undefined) continue;
      if (squeeze && c === last && inSqueeze(c)) continue;
      out += c;
      last = c;
    }
    ctx.out.write(out);
    return 0;
  },
};
