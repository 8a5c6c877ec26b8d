import type { LinuxPlan } from './bwrap-plan.js';
import type { RunCgroups } from './cgroup.js';
import { createAhead } from './ahead.js';
import { killGroup } from './launched.js';
import type { createLinuxPlanner, Wants } from './linux-run.js';
import type { createPlaceholderKeeper } from './placeholders.js';
import type { RunServer } from './run-server.js';
import type { RunSlot, RunSlots } from './run-slots.js';
import type { SandboxConfig } from './sandbox-config.js';
import type { PreparedLaunch } from './spawn-server.js';

/**
 * The next run, prepared once a run has ended (Linux, through the spawn server): started as far
 * as bwrap's command, with its own slot, cgroups and placeholders' hold, waiting for a command.
 */
export interface PreparedRun {
  readonly slot: RunSlot;
  readonly cgroups: RunCgroups | undefined;
  readonly wants: Wants;
  readonly factsKey: string;
  readonly placeholders: LinuxPlan['placeholders'];
  readonly launched: PreparedLaunch;
  /** Undoes its registration to be ended at process exit (see the keeper's `endAtExit`). */
  readonly forgetAtExit: () => void;
}

/** What prepared runs are made with. */
export interface PreparedRunsContext {
  readonly config: SandboxConfig;
  readonly slots: RunSlots;
  readonly server: RunServer;
  readonly linux: ReturnType<typeof createLinuxPlanner>;
  readonly keeper: ReturnType<typeof createPlaceholderKeeper> | undefined;
  readonly isClosed: () => boolean;
}

/**
 * A sandbox's run prepared ahead (the `prestart` option): one at a time, offered once a run has
 * ended, ended itself when unused for `placeholderLingerMs` (it holds the placeholders and a few
 * processes).
 *
 * @example
 * const prepared = createPreparedRuns(ctx);
 * prepared.noteSpawn(); const unused = await prepared.take(); ... prepared.prepareNext(wants);
 */
export function createPreparedRuns({ config, slots, server, linux, keeper, isClosed }: PreparedRunsContext) {
  const { options, platform, launcher, lingerMs, assertGrantsReal } = config;
  const prestart = options.prestart !== false && platform === 'linux' && launcher !== undefined && lingerMs > 0;
  /**
   * Ends a prepared run that will not take a command, and gives back what it held (its slot too, unless a run goes on
   * with it).
   */
  const abandon = async (run: PreparedRun, releaseSlot: boolean): Promise<void> => {
    run.forgetAtExit();
    // It never took a command, so its pipes never became streams: `closed` waits only for its end.
    run.launched.kill('SIGTERM');
    await run.launched.closed.catch(() => undefined);
    run.cgroups?.remove();
    keeper?.endRun(run.placeholders);
    if (releaseSlot) await run.slot.release();
  };
  // Unused for as long as placeholders linger, it is ended: it holds them (and a few processes).
  const ahead = createAhead<PreparedRun>(lingerMs, (run) => abandon(run, true));
  // Once a run has ended: then it sees what that run left (and does not compete with it for the
  // CPUs). And only while runs follow each other: when the last spawn came less than lingerMs
  // after the run before it ended. A sandbox used once, or every few seconds, would prepare runs
  // for nothing.
  let lastEnd: number | undefined;
  let following = false;
  const prepareNext = (wants: Wants): void => {
    const s = server.current;
    lastEnd = performance.now();
    if (!prestart || !following || isClosed() || !server.enabled || !s?.alive || ahead.holding) {
      slots.prepareSpare();
      return;
    }
    const prepare = async (): Promise<PreparedRun | undefined> => {
      const slot = await slots.take().catch(() => undefined);
      if (!slot) return undefined; // the next spawn makes its own slot, and reports why it could not
      await keeper?.beginRun();
      let cgroups: RunCgroups | undefined;
      let placeholders: LinuxPlan['placeholders'] = [];
      try {
        assertGrantsReal();
        cgroups = linux.cgroups(slot.runId);
        const known = linux.facts();
        const run = linux.plan(slot, cgroups, { argv: [], env: {}, cwd: '/', awaitCommand: true }, known);
        placeholders = run.plan.placeholders;
        const launched = await s.prepare(linux.request(run, wants));
        // Its supervisor leads a process group of its own (the server starts each run in a new session).
        const forgetAtExit = keeper?.endAtExit(() => killGroup(launched.pid)) ?? (() => undefined);
        return { slot, cgroups, wants, factsKey: known.key, placeholders, launched, forgetAtExit };
      } catch {
        // Nothing ran: the next spawn starts from the beginning.
        cgroups?.remove();
        keeper?.endRun(placeholders);
        await slot.release();
        return undefined;
      }
    };
    ahead.offer(prepare());
  };
  return {
    /** The prepared run, if any (it comes with its slot). */
    take: (): Promise<PreparedRun | undefined> => ahead.take(),
    abandon,
    prepareNext,
    /** At every spawn: whether it follows the last run's end closely enough to prepare the next. */
    noteSpawn(): void {
      following = lastEnd !== undefined && performance.now() - lastEnd < lingerMs;
    },
  };
}

/** One sandbox's prepared runs (see `createPreparedRuns`). */
export type PreparedRuns = ReturnType<typeof createPreparedRuns>;
