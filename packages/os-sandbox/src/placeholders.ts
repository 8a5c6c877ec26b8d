import { spawn, spawnSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { LinuxPlan } from './bwrap-plan.js';
import { onProcessExit } from './on-exit.js';
import { checkSandboxOptions } from './sandbox-options.js';

type Placeholder = LinuxPlan['placeholders'][number];

/** How long placeholders stay after the last run of a sandbox ends, unless set: 3 s. */
export const DEFAULT_PLACEHOLDER_LINGER_MS = 3_000;
/** How long the sweep at process exit waits for runs it ended to let go of their roots. */
const EXIT_SWEEP_WAIT_MS = 2_000;

const keeperOptionsSchema = z
  .object({
    launcher: z.string().min(1).describe('the launcher binary, e.g. "/opt/trust/launcher"'),
    lingerMs: z
      .number()
      .min(0)
      .max(2_147_483_647)
      .describe('how long placeholders stay after the last run in ms, e.g. 3000 (0 = removed by each run)'),
  })
  .strict();

/**
 * Keeps the read-only placeholders of one sandbox's runs (empty files and directories at
 * protected paths that did not exist, created on the host as mount points) and removes them.
 * Only roots the launcher cannot overlay have any, and only under `allowDegraded: ["host-placeholders"]`
 * (see `refuseUnoverlaid`): in the others
 * the missing names exist only inside each run.
 *
 * Every run holds its writable roots with a shared lock (the launcher's `--hold`), and a
 * placeholder is only removed by a launcher that gets the root's lock exclusively at once, that
 * is while no run over the root is live in any sandbox or process: unlinking a mount point on the
 * host would detach another run's read-only mount. With `lingerMs` 0 each run's launcher removes
 * its own placeholders when the run ends. Otherwise they stay while runs follow each other, so
 * that the next run finds them in place (creating and removing twenty of them costs some
 * milliseconds a spawn on a slow disk), and one `launcher --sweep-now` removes them once the
 * sandbox has had no run for `lingerMs`, or at `close()`, or (synchronously) when the process
 * exits while some are still kept.
 *
 * @example
 * const keeper = createPlaceholderKeeper({ launcher: '/opt/trust/launcher', lingerMs: 3000 });
 * await keeper.beginRun();
 * const args = keeper.runArgs(['/srv/p'], plan.placeholders); // launcher args for the run
 * keeper.endRun(plan.placeholders);
 */
export function createPlaceholderKeeper(options: { launcher: string; lingerMs: number }) {
  checkSandboxOptions('createPlaceholderKeeper', keeperOptionsSchema, options);
  const kept = new Map<string, Placeholder>();
  // Runs that hold roots but have run nothing (prepared runs): ended at exit, so that the sweep
  // there can remove what they held.
  const endable = new Set<() => void>();
  let live = 0;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;

  const args = (roots: readonly string[], sweep: readonly Placeholder[]): string[] =>
    [...new Set(roots)].flatMap((root) => [
      '--hold',
      root,
      ...sweep
        .filter((p) => dirname(p.path) === root)
        .flatMap((p) => ['--sweep', p.type === 'file' ? 'f' : 'd', p.path]),
    ]);

  const sweepArgs = (list: readonly Placeholder[]): string[] => [
    ...args(
      list.map((p) => dirname(p.path)),
      list,
    ),
    '--sweep-now',
  ];
  // A process that exits without close() still removes what it kept (the timer does not hold it open).
  const onExit = (): void => {
    if (kept.size === 0) return;
    for (const end of endable) end();
    // Those just ended let go of their roots as their processes go: waited for, briefly.
    const wait = endable.size > 0 ? ['--sweep-wait', String(EXIT_SWEEP_WAIT_MS)] : [];
    spawnSync(options.launcher, [...wait, ...sweepArgs([...kept.values()])], { stdio: 'ignore' });
  };
  const forget = (list: readonly Placeholder[]): void => {
    // What is gone was removed; what is left was busy (another live run) or no longer empty.
    for (const p of list) if (!lstatSync(p.path, { throwIfNoEntry: false })) kept.delete(p.path);
    if (kept.size === 0) onProcessExit(onExit, false);
  };

  const sweepNow = (): Promise<void> => {
    if (sweeping || kept.size === 0) return sweeping ?? Promise.resolve();
    const list = [...kept.values()];
    sweeping = new Promise<void>((done) => {
      const child = spawn(options.launcher, sweepArgs(list), { stdio: 'ignore' });
      child.once('error', () => done());
      child.once('close', () => done());
    }).then(() => {
      forget(list);
      sweeping = undefined;
    });
    return sweeping;
  };

  return {
    /** Launcher arguments for one run: hold every writable root; with no linger, sweep its own placeholders. */
    runArgs(rwRoots: readonly string[], placeholders: readonly Placeholder[]): string[] {
      return args(rwRoots, options.lingerMs === 0 ? placeholders : []);
    },
    /**
     * Registers `end` (synchronous, e.g. a SIGKILL) for a run that holds roots but has run no
     * command, to be ended if the process exits while placeholders are kept. Returns the undo.
     */
    endAtExit(end: () => void): () => void {
      endable.add(end);
      return () => endable.delete(end);
    },
    /** Before a run is planned: no sweep may be removing what its plan sees. */
    async beginRun(): Promise<void> {
      live++;
      clearTimeout(timer);
      timer = undefined;
      await sweeping;
    },
    /** After a run ended: its placeholders are kept; the last run out arms the idle sweep. */
    endRun(placeholders: readonly Placeholder[]): void {
      live--;
      if (options.lingerMs === 0) return;
      if (kept.size === 0 && placeholders.length > 0) onProcessExit(onExit, true);
      for (const p of placeholders) kept.set(p.path, p);
      if (live > 0 || kept.size === 0) return;
      clearTimeout(timer);
      timer = setTimeout(() => void sweepNow(), options.lingerMs);
      timer.unref();
    },
    /** When every run has ended: removes what is kept now. */
    async close(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      await sweeping;
      await sweepNow();
      onProcessExit(onExit, false);
    },
  };
}
