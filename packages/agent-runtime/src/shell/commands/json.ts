import type { ShellCommand } from '../shell-types.js';
import { inputText, parseArgs } from './text.js';

type Step = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'each' };

function parsePath(term: string): Step[] {
  if (!term.startsWith('.')) throw new Error(`unsupported filter ${JSON.stringify(term)}`);
  const steps: Step[] = [];
  const re = /\.([A-Za-z_][A-Za-z0-9_]*)|\.?\[(-?[0-9]+)\]|\.?\[\]|\.?\["([^"]*)"\]|(\.)$/y;
  let i = 0;
  if (term === '.') return steps;
  while (i < term.length) {
    re.lastIndex = i;
    const m = re.exec(term);
    if (!m) throw new Error(`unsupported filter ${JSON.stringify(term)}`);
    if (m[1] !== undefined) steps.push({ kind: 'key', key: m[1] });
    else if (m[2] !== undefined) steps.push({ kind: 'index', index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ kind: 'key', key: m[3] });
    else if (m[4] === undefined) steps.push({ kind: 'each' });
    i = re.lastIndex;
  }
  return steps;
}

function applyTerm(term: string, inputs: unknown[]): unknown[] {
  const t = term.trim();
  if (t === 'keys')
    return inputs.map((v) =>
      Array.isArray(v) ? v.map((_x, i) => i) : v && typeof v === 'object' ? Object.keys(v).sort() : null,
    );
  if (t === 'length')
    return inputs.map((v) =>
      typeof v === 'string' || Array.isArray(v)
        ? v.length
        : v && typeof v === 'object'
          ? Object.keys(v).length
          : v === null
            ? 0
            : Math.abs(Number(v)),
    );
  if (t === 'type') return inputs.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v));
  let values = inputs;
  for (const step of parsePath(t)) {
    const next: unknown[] = [];
    for (const v of values) {
      if (step.kind === 'each') {
        if (Array.isArray(v)) next.push(...v);
        else if (v && typeof v === 'object') next.push(...Object.values(v));
        else throw new Error('cannot iterate over a non-container');
      } else if (step.kind === 'index') next.push(Array.isArray(v) ? (v.at(step.index) ?? null) : null);
      else
        next.push(
          v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, step.key)
            ? (v as Record<string, unknown>)[step.key]
            : null,
        );
    }
    values = next;
  }
  return values;
}

/** A jq subset: paths (.a.b, .[0], .[], .a[]), keys, length, type, and `|`. */
export const jq: ShellCommand = {
  name: 'jq',
  summary: 'JSON filter subset: .a.b .[0] .[] keys length type, piped with | (-r raw, -c compact)',
  tools: (argv) => (parseArgs(argv).operands.length > 1 ? ['fs_read'] : []),
  async run(ctx, argv) {
    const { flags, operands } = parseArgs(argv);
    const [filter = '.', ...files] = operands;
    let data: unknown;
    try {
      data = JSON.parse(await inputText(ctx, files));
    } catch (e) {
      ctx.err.write(`jq: invalid JSON input: ${(e as Error).message}\n`);
      return 2;
    }
    let values: unknown[] = [data];
    try {
      for (const term of filter.split('|')) values = applyTerm(term, values);
    } catch (e) {
      ctx.err.write(`jq: ${(e as Error).message}\n`);
      return 3;
    }
    for (const v of values)
      ctx.out.write(
        `${flags.has('r') && typeof v === 'string' ? v : JSON.stringify(v, null, flags.has('c') ? undefined : 2)}\n`,
      );
    return 0;
  },
};
