import { checkOptions } from '../options/strict-options.js';
import { replayGuardOptionsSchema } from './messaging-options.js';

/**
 * Remembers message ids for as long as their timestamp could still pass the skew check. Older
 * ids can go: a replay of them fails the timestamp check. `knownElsewhere` asks durable storage
 * (the agent's inbox) so that a restart does not open a replay window.
 */
export interface ReplayGuard {
  /** True when the id was accepted before. */
  has(id: string): boolean;
  /** Records an accepted id until `expiresAt`. False when the guard is full of live ids. */
  remember(id: string, expiresAt: number): boolean;
  /** Releases an id remembered for a message that was then refused, so its sender may retry it. */
  forget(id: string): void;
}

export function createReplayGuard(input: {
  now: () => number;
  knownElsewhere?: (id: string) => boolean;
  maxEntries?: number;
}): ReplayGuard {
  const options = checkOptions('createReplayGuard', replayGuardOptionsSchema, input);
  const ids = new Map<string, number>();
  const max = options.maxEntries ?? 100_000;
  return {
    has(id) {
      const exp = ids.get(id);
      if (exp !== undefined && exp > options.now()) return true;
      return options.knownElsewhere?.(id) ?? false;
    },
    remember(id, expiresAt) {
      if (ids.size >= max) {
        const now = options.now();
        for (const [k, exp] of ids) if (exp <= now) ids.delete(k);
      }
      // Still full of live ids: refuse rather than forget one (fail closed under a flood).
      if (ids.size >= max) return false;
      ids.set(id, expiresAt);
      return true;
    },
    forget(id) {
      ids.delete(id);
    },
  };
}
