import type { ShellCommand } from '../shell-types.js';
import { inputText, lines, readsFiles } from './text.js';
import { parseOptions } from './options.js';
import type { OptionTable } from './options.js';

const DIFF_OPTIONS: OptionTable = {
  flags: 'uqsi',
  values: 'U',
  long: {
    brief: { key: 'q' },
    'report-identical-files': { key: 's' },
    'ignore-case': { key: 'i' },
    unified: { key: 'u' },
  },
};

type Op = { kind: '=' | '-' | '+'; line: string; a: number; b: number };

/** Line diff by longest common subsequence (at most 4 million line pairs). */
export function diffLines(a: readonly string[], b: readonly string[], key: (line: string) => string = (l) => l): Op[] {
  const ka = a.map(key);
  const kb = b.map(key);
  if (a.length * b.length > 4_000_000) throw new Error('inputs too large to compare (more than 4 million line pairs)');
  const n = a.length;
  const m = b.length;
  const L: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      L[i]![j] = ka[i] === kb[j] ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && ka[i] === kb[j]) {
      ops.push({ kind: '=', line: a[i]!, a: i++, b: j++ });
    } else if (i < n && (j >= m || L[i + 1]![j]! >= L[i]![j + 1]!)) ops.push({ kind: '-', line: a[i]!, a: i++, b: j });
    else ops.push({ kind: '+', line: b[j]!, a: i, b: j++ });
  }
  return ops;
}

const range = (start: number, count: number) =>
  count <= 1 ? String(count === 0 ? start : start + 1) : `${start + 1},${start + count}`;

function normal(ops: readonly Op[]): string {
  let out = '';
  for (let k = 0; k < ops.length; ) {
    if (ops[k]!.kind === '=') {
      k++;
      continue;
    }
    const del: Op[] = [];
    const add: Op[] = [];
    const first = ops[k]!;
    while (k < ops.length && ops[k]!.kind !== '=') {
      (ops[k]!.kind === '-' ? del : add).push(ops[k]!);
      k++;
    }
    const ar = del.length ? range(del[0]!.a, del.length) : String(first.a);
    const br = add.length ? range(add[0]!.b, add.length) : String(first.b);
    out += `${ar}${del.length && add.length ? 'c' : del.length ? 'd' : 'a'}${br}\n`;
    for (const d of del) out += `< ${d.line}\n`;
    if (del.length && add.length) out += '---\n';
    for (const x of add) out += `> ${x.line}\n`;
  }
  return out;
}

function unified(ops: readonly Op[], nameA: string, nameB: string, ctxLines: number): string {
  let out = `--- ${nameA}\n+++ ${nameB}\n`;
  const changed = ops.map((o, i) => (o.kind !== '=' ? i : -1)).filter((i) => i >= 0);
  let k = 0;
  while (k < changed.length) {
    let start = Math.max(0, changed[k]! - ctxLines);
    let end = Math.min(ops.length, changed[k]! + ctxLines + 1);
    while (k + 1 < changed.length && changed[k + 1]! - ctxLines <= end) {
      k++;
      end = Math.min(ops.length, changed[k]! + ctxLines + 1);
    }
    k++;
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== '+').length;
    const bCount = hunk.filter((o) => o.kind !== '-').length;
    const aStart = hunk[0]!.a + (aCount ? 1 : 0);
    const bStart = hunk[0]!.b + (bCount ? 1 : 0);
    const aRange = aCount === 1 ? `${aStart}` : `${aStart},${aCount}`;
    const bRange = bCount === 1 ? `${bStart}` : `${bStart},${bCount}`;
    out += `@@ -${aRange} +${bRange} @@\n`;
    for (const o of hunk) out += `${o.kind === '=' ? ' ' : o.kind}${o.line}\n`;
    start = end;
  }
  return out;
}

export const diff: ShellCommand = {
  name: 'diff',
  summary:
    'compare two files line by line: normal output, -u/-U N unified (no timestamps), -q brief, -s report ' +
    'identical files, -i ignore case; status 1 when they differ (→ fs_read)',
  options: DIFF_OPTIONS,
  tools: (argv) => readsFiles(parseOptions('diff', DIFF_OPTIONS, argv).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseOptions('diff', DIFF_OPTIONS, argv);
    if (operands.length !== 2) {
      ctx.err.write(`diff: ${operands.length < 2 ? 'missing' : 'extra'} operand\n`);
      return 2;
    }
    const [fa, fb] = operands as [string, string];
    const a = await inputText(ctx, [fa]);
    const b = await inputText(ctx, [fb]);
    const key = flags.has('i') ? (l: string) => l.toLowerCase() : (l: string) => l;
    if (key(a) === key(b)) {
      if (flags.has('s')) ctx.out.write(`Files ${fa} and ${fb} are identical\n`);
      return 0;
    }
    if (flags.has('q')) {
      ctx.out.write(`Files ${fa} and ${fb} differ\n`);
      return 1;
    }
    const ops = diffLines(lines(a), lines(b), key);
    ctx.out.write(
      flags.has('u') || flags.has('U')
        ? unified(ops, fa, fb, flags.has('U') ? Number(flags.get('U')) || 0 : 3)
        : normal(ops),
    );
    return 1;
  },
};
