import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** How a started run ended: the exit code, or the signal that ended it. */
export interface LaunchedExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * A run's host-side process (the supervising launcher, or bwrap itself), however it was started:
 * forked by this process or by the launcher's spawn server.
 */
export interface Launched {
  readonly pid: number;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** SIGTERM to the process, or SIGKILL to it and its whole process group. Never throws. */
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Settles once the process has exited and its stdout and stderr have closed. */
  readonly closed: Promise<LaunchedExit>;
}

/** SIGKILLs process group `pgid`, if it is still there. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/**
 * Wraps a child this process spawned itself (`detached`, so that its pid is its process group),
 * writing `feeds[k]` (when set) to its fd 3 + k and closing it.
 *
 * @example
 * const child = spawn('/usr/bin/bwrap', ['--args', '3', '--', '/bin/true'], {
 *   detached: true,
 *   stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
 * });
 * const l = fromChildProcess(child, [options]);
 */
export function fromChildProcess(child: ChildProcess, feeds: readonly (Uint8Array | undefined)[] = []): Launched {
  feeds.forEach((bytes, k) => {
    const fd = child.stdio[3 + k] as Writable | null | undefined;
    if (!bytes || !fd) return;
    fd.on('error', () => undefined);
    fd.end(bytes);
  });
  return {
    pid: child.pid ?? -1,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    kill(signal) {
      if (signal === 'SIGKILL' && child.pid !== undefined) killGroup(child.pid);
      try {
        child.kill(signal);
      } catch {
        /* already gone */
      }
    },
    closed: new Promise<LaunchedExit>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    }),
  };
}
