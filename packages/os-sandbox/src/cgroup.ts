import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Per-run cgroups, created under the delegated directories `probeSandbox` found. */
export interface RunCgroups {
  /** The `cgroup.procs` files the launcher joins before it execs bubblewrap. */
  readonly procsFiles: readonly string[];
  /** Removes the run's cgroup directories (after every process in them ended). */
  remove(): void;
}

/**
 * Creates the run's cgroups and writes the limits: `pids.max`, and `memory.limit_in_bytes`
 * (v1) or `memory.max` (v2). Returns undefined when nothing was asked for.
 */
export function createRunCgroups(
  runId: string,
  bases: { pids?: string; memory?: string; version?: 1 | 2 },
  limits: { pids?: number; memoryBytes?: number },
): RunCgroups | undefined {
  const dirs: string[] = [];
  const name = `trust-${runId}`;
  const make = (base: string): string => {
    const dir = join(base, name);
    if (!dirs.includes(dir)) {
      mkdirSync(dir);
      dirs.push(dir);
    }
    return dir;
  };
  try {
    if (limits.pids !== undefined && bases.pids) writeFileSync(join(make(bases.pids), 'pids.max'), String(limits.pids));
    if (limits.memoryBytes !== undefined && bases.memory) {
      const file = bases.version === 2 ? 'memory.max' : 'memory.limit_in_bytes';
      writeFileSync(join(make(bases.memory), file), String(limits.memoryBytes));
    }
  } catch (err) {
    for (const d of dirs) tryRemove(d);
    throw err;
  }
  if (dirs.length === 0) return undefined;
  return {
    procsFiles: dirs.map((d) => join(d, 'cgroup.procs')),
    remove: () => {
      // Processes of the namespace may still be exiting: retry briefly in the background.
      let left = dirs.filter((d) => !tryRemove(d));
      let tries = 0;
      const again = (): void => {
        left = left.filter((d) => !tryRemove(d));
        if (left.length > 0 && ++tries < 20) setTimeout(again, 50).unref();
      };
      if (left.length > 0) setTimeout(again, 20).unref();
    },
  };
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
