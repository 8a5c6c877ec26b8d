// Kept local rather than importing @trust/core: the CLI parses flags before loading any package,
// so that `trust --help` stays fast (core pulls in zod at import time).
/** Levenshtein distance between two strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/**
 * The closest candidate for a "did you mean" hint, or `undefined` when none is close: within 1
 * edit for short inputs, 2 for inputs of 5+ characters, or a candidate the input is a prefix of
 * (at least 3 characters). Case is ignored; the first of equally close candidates wins.
 *
 * @example
 * didYouMean('--polcy', ['--policy', '--json']); // '--policy'
 */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  const limit = needle.replace(/^-+/, '').length >= 5 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(needle, candidate.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best !== undefined) return best;
  const bare = needle.replace(/^-+/, '');
  if (bare.length >= 3) return candidates.find((c) => c.toLowerCase().replace(/^-+/, '').startsWith(bare));
  return undefined;
}
