import { TrustError } from '@trust/core';
import type { Launched } from './launched.js';
import type { SandboxViolation } from './network.js';
import { capOutput } from './output-capture.js';
import type { SandboxExit, SandboxProcess } from './sandbox-types.js';

/** How long `kill()` waits for the supervising launcher to end a run before killing its group. */
const FORCE_KILL_AFTER_MS = 5_000;

/** A started run and what its end must do. */
export interface SupervisedRun {
  readonly child: Launched;
  readonly runId: string;
  readonly violations: readonly SandboxViolation[];
  readonly started: number;
  readonly file: string;
  /** The launcher supervises the run (SIGTERM to it first), else a SIGKILL of the group. */
  readonly lifeline: boolean;
  readonly timeoutMs: number;
  readonly maxOutput: number;
  readonly signal: AbortSignal | undefined;
  /** Called first when the run ends (prepares the next run). */
  onEnd(): void;
  /** Undoes what the run held (cgroups, placeholders' hold), best effort. */
  cleanup(): Promise<void>;
  /** Gives the run's slot back. */
  releaseSlot(): void;
  /** Records the `sandbox.exit` event. */
  auditExit(result: SandboxExit): void;
  /** Where live runs are kept until they end (for `close()`). */
  readonly running: Set<SandboxProcess>;
}

/**
 * Supervises a started run: caps its output, ends its whole tree on timeout, abort or `kill()`,
 * and resolves `exit` once it is over and its slot given back.
 *
 * @example
 * const handle = superviseRun({
 *   child, runId, violations, started, file, lifeline, timeoutMs, maxOutput, signal, ...
 * });
 */
export function superviseRun(run: SupervisedRun): SandboxProcess {
  const { child, signal: abort } = run;
  const out = capOutput(child.stdout, run.maxOutput);
  const err = capOutput(child.stderr, run.maxOutput);
  let timedOut = false;
  let done = false;
  let forceTimer: NodeJS.Timeout | undefined;
  const forceKill = (): void => {
    // The run has its own process group (a new session). Killing it ends the sandbox's PID 1
    // (--die-with-parent), and the kernel then kills every process in the PID namespace.
    if (!done) child.kill('SIGKILL');
  };
  const killTree = (): void => {
    if (done) return;
    if (!run.lifeline) {
      forceKill();
      return;
    }
    // The supervising launcher SIGKILLs everything below it on SIGTERM, then removes the
    // run's placeholders (which a SIGKILL of the launcher itself would leave behind). Should
    // it not be gone in a few seconds, the whole group is killed anyway.
    child.kill('SIGTERM');
    forceTimer ??= setTimeout(forceKill, FORCE_KILL_AFTER_MS);
    forceTimer.unref();
  };
  // A service run (no wall-clock budget) has no timer: setTimeout would fire an Infinity at once.
  const timer = Number.isFinite(run.timeoutMs)
    ? setTimeout(() => {
        timedOut = true;
        killTree();
      }, run.timeoutMs)
    : undefined;
  const onAbort = (): void => killTree();
  abort?.addEventListener('abort', onAbort, { once: true });
  if (abort?.aborted) killTree();

  const exit = child.closed.then(
    async ({ code, signal }) => {
      done = true;
      run.onEnd();
      clearTimeout(timer);
      clearTimeout(forceTimer);
      abort?.removeEventListener('abort', onAbort);
      run.running.delete(handle);
      await run.cleanup();
      const result: SandboxExit = Object.freeze({
        code,
        signal,
        timedOut,
        truncated: out.truncated() || err.truncated(),
        truncatedStreams: { stdout: out.truncated(), stderr: err.truncated() },
        violations: Object.freeze([...run.violations]),
        runId: run.runId,
        durationMs: Date.now() - run.started,
      });
      run.auditExit(result);
      run.releaseSlot();
      return result;
    },
    async (e: Error) => {
      done = true;
      clearTimeout(timer);
      clearTimeout(forceTimer);
      abort?.removeEventListener('abort', onAbort);
      run.running.delete(handle);
      await run.cleanup();
      run.releaseSlot();
      throw new TrustError('SANDBOX_UNAVAILABLE', `could not start ${run.file}: ${e.message}`, {
        cause: e,
        hint: 'check that bubblewrap is installed',
      });
    },
  );
  const handle: SandboxProcess = Object.freeze({
    runId: run.runId,
    pid: child.pid,
    stdout: out.stream,
    stderr: err.stream,
    kill: killTree,
    exit,
  });
  run.running.add(handle);
  return handle;
}
