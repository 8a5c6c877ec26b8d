// Row model shared by every suite. A suite returns rows of
//   { measure, unit, ours, baseline?, baselineName?, better: 'higher' | 'lower', target? }
// where `target` is { ratio?: number, max?: number } (ratio = ours / baseline, oriented by `better`).

/** Adds the ratio and the verdict against the target. */
export function summarise(row) {
  const ratio = typeof row.baseline === 'number' && row.baseline > 0 ? row.ours / row.baseline : undefined;
  let pass;
  if (row.target) {
    const checks = [];
    if (row.target.ratio !== undefined && ratio !== undefined) {
      checks.push(row.better === 'higher' ? ratio >= row.target.ratio : ratio <= row.target.ratio);
    }
    if (row.target.max !== undefined) checks.push(row.ours <= row.target.max);
    if (row.target.min !== undefined) checks.push(row.ours >= row.target.min);
    pass = checks.length > 0 ? checks.every(Boolean) : undefined;
  }
  return { ...row, ratio, pass };
}

function fmt(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '-';
  if (Math.abs(n) >= 1000) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(3);
}

function targetText(row) {
  if (!row.target) return '';
  const parts = [];
  if (row.target.ratio !== undefined) parts.push(`${row.better === 'higher' ? '≥' : '≤'} ${row.target.ratio}×`);
  if (row.target.max !== undefined) parts.push(`≤ ${row.target.max} ${row.unit}`);
  if (row.target.min !== undefined) parts.push(`≥ ${row.target.min} ${row.unit}`);
  return parts.join(', ');
}

/** Formats rows as a plain-text table. */
export function formatTable(rows) {
  const head = ['suite', 'measure', 'ours', 'baseline', 'ratio', 'unit', 'target', 'ok'];
  const body = rows.map((r) => [
    r.suite,
    r.measure,
    fmt(r.ours),
    r.baseline === undefined ? '-' : `${fmt(r.baseline)} (${r.baselineName ?? 'baseline'})`,
    r.ratio === undefined ? '-' : `${r.ratio.toFixed(2)}×`,
    r.unit,
    targetText(r),
    r.pass === undefined ? '' : r.pass ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** Runs `fn` `n` times and returns sorted per-call durations in nanoseconds. */
export async function sample(fn, n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    out[i] = Number(process.hrtime.bigint() - t0);
  }
  return out.sort((a, b) => a - b);
}

/**
 * Samples every function of `fns` `n` times in total, in `rounds` alternating blocks (the order
 * reversed every other round), so that a change of machine speed during the run hits all of
 * them alike; returns sorted per-call durations in nanoseconds per key.
 */
export async function sampleInterleaved(fns, n, rounds = 10) {
  const keys = Object.keys(fns);
  const out = Object.fromEntries(keys.map((k) => [k, []]));
  const per = Math.ceil(n / rounds);
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 ? [...keys].reverse() : keys) out[k].push(...(await sample(fns[k], per)));
  }
  for (const k of keys) out[k].sort((a, b) => a - b);
  return out;
}

/** Percentile of a sorted array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
