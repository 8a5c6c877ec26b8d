import { lookup } from 'node:dns/promises';

/** Resolves a name to address strings. Injectable; the default uses the system resolver. */
export type Resolve = (host: string) => Promise<string[]>;

/** The default resolver: `dns.lookup` with `all` and `verbatim` (every A and AAAA answer, in order). */
export const systemResolve: Resolve = async (host) => {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

/** Outcome of one timed resolution. */
export type ResolveOutcome =
  | { readonly kind: 'ok'; readonly addresses: readonly string[] }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'error'; readonly error: unknown };

/** Runs `resolve` with a deadline. A hung resolver becomes `timeout`, never a hang. */
export async function resolveWithin(resolve: Resolve, host: string, timeoutMs: number): Promise<ResolveOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ResolveOutcome>((ok) => {
    timer = setTimeout(() => ok({ kind: 'timeout' }), timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([
      resolve(host).then(
        (addresses): ResolveOutcome => ({ kind: 'ok', addresses: Array.isArray(addresses) ? addresses : [] }),
        (error: unknown): ResolveOutcome => ({ kind: 'error', error }),
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A small per-guard answer cache with a short expiry. It stores raw answers only: every address
 * is still judged on every use, at connect time.
 */
export interface AnswerCache {
  get(host: string, now: number): readonly string[] | undefined;
  set(host: string, addresses: readonly string[], now: number): void;
}

export function createAnswerCache(ttlMs: number, maxEntries = 1024): AnswerCache {
  const entries = new Map<string, { addresses: readonly string[]; expires: number }>();
  return {
    get(host, now) {
      if (ttlMs <= 0) return undefined;
      const e = entries.get(host);
      if (e === undefined) return undefined;
      if (e.expires <= now) {
        entries.delete(host);
        return undefined;
      }
      return e.addresses;
    },
    set(host, addresses, now) {
      if (ttlMs <= 0) return;
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(host, { addresses, expires: now + ttlMs });
    },
  };
}
