/** One scripted outcome of a lookup. */
export type StubOutcome =
  /** Answer with these addresses (may be empty). */
  | readonly string[]
  /** Fail like a resolver would (`code` defaults to `ENOTFOUND`). */
  | { readonly fail: string }
  /** Never settle: models a resolver that hangs. */
  | { readonly hang: true }
  /** Answer after a delay (`answer`, not `then`: an object with `then` would be taken for a promise). */
  | { readonly delayMs: number; readonly answer: readonly string[] };

/**
 * What a name answers: one outcome for every call, or `{ sequence }` with one outcome per call
 * (the last one repeats). A sequence models DNS rebinding: public first, then private.
 */
export type StubAnswer = StubOutcome | { readonly sequence: readonly StubOutcome[] };

/** A resolver function `(host) => Promise<string[]>` that also records its calls. */
export interface StubResolver {
  (host: string): Promise<string[]>;
  /** Every host asked, in order. */
  readonly calls: readonly string[];
  /** How many times `host` was asked. */
  count(host: string): number;
}

export interface StubResolverOptions {
  /** Outcome for names not in the table (default: fail with `ENOTFOUND`). */
  readonly fallback?: StubOutcome;
}

function isSequence(a: StubAnswer): a is { readonly sequence: readonly StubOutcome[] } {
  return typeof a === 'object' && a !== null && !Array.isArray(a) && 'sequence' in a;
}

function settle(outcome: StubOutcome, host: string): Promise<string[]> {
  if (Array.isArray(outcome)) return Promise.resolve([...(outcome as readonly string[])]);
  const o = outcome as Exclude<StubOutcome, readonly string[]>;
  if ('fail' in o) {
    const err = Object.assign(new Error(`stub resolver: ${o.fail} ${host}`), { code: o.fail, hostname: host });
    return Promise.reject(err);
  }
  if ('hang' in o) return new Promise<string[]>(() => {});
  return new Promise((resolve) => setTimeout(() => resolve([...o.answer]), o.delayMs));
}

/**
 * Builds a resolver that answers from a table and never touches the network. Host keys are
 * matched lowercase, without a trailing dot.
 *
 * @example
 * const resolve = createStubResolver({
 *   'public.test': ['93.184.216.34'],
 *   'rebind.test': { sequence: [['127.0.0.1'], ['10.0.0.1']] },
 *   'broken.test': { fail: 'ESERVFAIL' },
 * });
 * await resolve('public.test'); // ['93.184.216.34']
 */
export function createStubResolver(
  table: Readonly<Record<string, StubAnswer>>,
  options: StubResolverOptions = {},
): StubResolver {
  const entries = new Map(Object.entries(table).map(([k, v]) => [k.toLowerCase().replace(/\.$/, ''), v]));
  const calls: string[] = [];
  const counts = new Map<string, number>();
  const fn = (host: string): Promise<string[]> => {
    const key = host.toLowerCase().replace(/\.$/, '');
    calls.push(key);
    const n = counts.get(key) ?? 0;
    counts.set(key, n + 1);
    const answer = entries.get(key) ?? options.fallback ?? { fail: 'ENOTFOUND' };
    if (isSequence(answer)) {
      const seq = answer.sequence;
      const pick = seq[Math.min(n, seq.length - 1)];
      return pick === undefined ? Promise.resolve([]) : settle(pick, key);
    }
    return settle(answer, key);
  };
  return Object.assign(fn, {
    calls: calls as readonly string[],
    count: (h: string) => counts.get(h.toLowerCase().replace(/\.$/, '')) ?? 0,
  });
}
