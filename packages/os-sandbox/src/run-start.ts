import { spawn as spawnChild } from 'node:child_process';
import { encodeBwrapArgs } from './launcher-wire.js';
import { fromChildProcess, type Launched } from './launched.js';
import { LIFELINE_FD, type Wants } from './linux-run.js';
import type { RunServer } from './run-server.js';

/** How one planned run is started. */
export interface RunStart {
  readonly platform: 'linux' | 'darwin';
  /** The host-side launcher supervises bwrap on the lifeline (Linux with the launcher). */
  readonly lifeline: boolean;
  readonly file: string;
  readonly args: readonly string[];
  /** bwrap's options (Linux): descriptor 3, or words to the spawn server. */
  readonly argsFd: readonly string[] | undefined;
  readonly seccompFilter: Uint8Array | undefined;
  readonly wants: Wants;
  /** The command's environment (macOS: sandbox-exec's; Linux: bwrap sets it). */
  readonly env: Record<string, string>;
}

/**
 * Starts a run: through the launcher's spawn server when it is in use (started here at the first
 * run that needs it), else with this process's own `spawn` (holding the lifeline itself).
 *
 * @example
 * const child = await startRun(server, {
 *   platform: 'linux', lifeline: true, file, args, argsFd, seccompFilter, wants, env,
 * });
 */
export async function startRun(server: RunServer, run: RunStart): Promise<Launched> {
  const { lifeline, wants, argsFd } = run;
  const fd4 = argsFd && run.seccompFilter ? run.seccompFilter : undefined;
  if (lifeline && server.enabled) server.ensure();
  // The spawn server takes the options as words (see launcher-wire.ts); bwrap itself, its file.
  const fd3 = argsFd && !(lifeline && server.enabled) ? encodeBwrapArgs(argsFd) : undefined;
  if (lifeline && server.enabled) {
    // The launcher's spawn server forks the run, and holds its lifeline for this process.
    return server.current!.launch({
      args: run.args,
      ...(argsFd ? { options: argsFd } : {}),
      ...(fd4 ? { fd4 } : {}),
      ...wants,
    });
  }
  const forked = spawnChild(run.file, run.args as string[], {
    stdio: [
      wants.stdin ? 'pipe' : 'ignore',
      wants.stdout ? 'pipe' : 'ignore',
      wants.stderr ? 'pipe' : 'ignore',
      fd3 ? 'pipe' : 'ignore',
      fd4 ? 'pipe' : 'ignore',
      lifeline ? 'pipe' : 'ignore',
    ],
    detached: true,
    env: run.platform === 'darwin' ? run.env : { PATH: '/usr/bin:/bin' },
  });
  if (lifeline) {
    // This process holds the lifeline itself: never written, only kept open while it lives.
    // Read (and drained) so that its end is seen and the child's 'close' can fire.
    const fd5 = (forked.stdio as unknown as ReadonlyArray<(NodeJS.ReadableStream & { unref?: () => void }) | null>)[
      LIFELINE_FD
    ];
    fd5?.on('error', () => undefined);
    fd5?.resume();
    fd5?.unref?.();
  }
  return fromChildProcess(forked, [fd3, fd4]);
}
