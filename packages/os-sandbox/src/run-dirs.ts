import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The private directories that hold a Linux run's egress socket (the relays outside the sandbox
 * are chrooted into them). Making and removing a directory costs this process about half a
 * millisecond per run on a journaling disk, so a directory whose run is over (its proxy closed,
 * which removes the socket) goes back to the pool for a later run. One run at a time per
 * directory: a run's relays, which are gone before its end is reported, only ever find its own
 * socket there. A directory that is not empty when given back is removed instead.
 *
 * @example
 * const dirs = createRunDirPool('/tmp/trust-sandbox-x');
 * const dir = dirs.take(); // mkdir once, then reused
 * dirs.give(dir);
 */
export function createRunDirPool(parent: string) {
  const free: string[] = [];
  let made = 0;
  return {
    take(): string {
      const reused = free.pop();
      if (reused !== undefined) return reused;
      const dir = join(parent, `run-${made++}`);
      mkdirSync(dir, { mode: 0o700 });
      return dir;
    },
    give(dir: string): void {
      if (readdirSync(dir).length === 0) free.push(dir);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}
