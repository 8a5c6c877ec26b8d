/**
 * Edit distance between two strings (UTF-16 code units): insertions, deletions, substitutions
 * and transpositions of adjacent characters each cost 1 (optimal string alignment), so the
 * common typo `evn` is one edit from `env`.
 *
 * @example
 * editDistance('evn', 'env'); // 1
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      cur.push(d);
    }
    rows.push(cur);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The closest candidate to `input` for a "did you mean" hint, or `undefined` when nothing is
 * close. Comparison ignores case; a candidate within 1 edit (2 for inputs of 5+ characters)
 * qualifies, and the first of equally close candidates wins.
 *
 * @example
 * suggest('netwrok', ['http', 'network']); // 'network'
 */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  const limit = needle.length >= 5 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(needle, candidate.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
