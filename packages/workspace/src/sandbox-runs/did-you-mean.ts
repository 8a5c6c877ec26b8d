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

/** `--trustedKeys` → `--trusted-keys`: API field spellings typed as flags. */
function kebab(flag: string): string {
  return flag.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/**
 * The closest flag for a "did you mean" hint on an unknown option. Beyond {@link didYouMean}, it
 * reads camelCase API field names as flags (`--allowCidrs` → `--allow-cidr`), accepts a flag the
 * input starts with (`--capability` → `--cap`, `--trusted-keys` → `--trusted`), and never guesses
 * for a one-letter short flag (every letter is one edit from every other).
 *
 * @example
 * didYouMeanFlag('--trustedKeys', ['--trusted', '--grant']); // '--trusted'
 */
export function didYouMeanFlag(input: string, flags: readonly string[]): string | undefined {
  if (/^-[^-]$/.test(input)) return undefined;
  const longs = flags.filter((f) => f.startsWith('--'));
  const wanted = kebab(input);
  const close = didYouMean(wanted, longs);
  if (close !== undefined) return close;
  const bare = wanted.replace(/^-+/, '');
  const within = longs.filter((f) => f.length >= 5 && bare.startsWith(f.slice(2))).sort((a, b) => b.length - a.length);
  return within[0];
}
