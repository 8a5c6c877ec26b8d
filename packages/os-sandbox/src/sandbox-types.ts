import type { Readable } from 'node:stream';
import type { AuditSink, EgressPolicy } from '@trust/core';
import type { EgressProxyFactory, SandboxGuardOptions, SandboxViolation } from './network.js';
import type { DegradedMode, SandboxPolicy } from './policy.js';
import type { SandboxProbe } from './probe.js';

/** Options of `createSandbox`; everything is injectable and has a real default. */
export interface CreateSandboxOptions {
  /** The policy every http/tcp request of every run is judged by. Required for those capabilities. */
  readonly egress?: EgressPolicy;
  /** Address-guard options for the per-run proxy; `mode` defaults to the policy's `network.guard` ('strict'). */
  readonly guard?: SandboxGuardOptions;
  /** Where spawn, degraded, exit and egress events go. Undefined = not recorded anywhere. */
  readonly audit?: AuditSink;
  /** Source of base and granted environment variables; undefined = `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly bwrapPath?: string;
  /**
   * A prebuilt launcher with its expected SHA-256; undefined = compile `native/` (launcher.c and its siblings) once.
   */
  readonly launcher?: { readonly path: string; readonly sha256: string };
  /**
   * How the loopback bridge and limits are provided: `'launcher'` (default; compiled from
   * `native/`, falling back to socat + prlimit when no C compiler exists) or
   * `'socat'` (always the fallback; slower, and no cgroup joining).
   */
  readonly bridge?: 'launcher' | 'socat';
  /**
   * Where compiled launchers are cached (created 0700, must be owned by this user); undefined =
   * `$TRUST_CACHE_DIR/launcher`, else `$XDG_CACHE_HOME/trust/launcher`, else
   * `~/.cache/trust/launcher`. Never the installed package. Runs cannot write it (see `hideLauncher`).
   */
  readonly launcherCacheDir?: string;
  /**
   * How the cached launcher is trusted: `'manifest'` (default) checks it against the hash recorded
   * when it was built; `'rebuild'` compiles the sources again (about 1.7 s) and checks it against
   * the hash of that build, replacing a cache that differs. Ignored with `launcher`.
   */
  readonly launcherVerify?: 'manifest' | 'rebuild';
  /**
   * Host directory for per-run sockets and (macOS) HOME/TMPDIR; undefined = a fresh private temp
   * dir, removed by `close()` or, if the process exits without it, at exit (not after a kill).
   */
  readonly workDir?: string;
  /** The host facts probe result; undefined = measured by `probeSandbox`. */
  readonly probe?: SandboxProbe;
  /** Starts the per-run egress proxy; undefined = `@trust/egress` `createEgressProxy`. */
  readonly createProxy?: EgressProxyFactory;
  /**
   * How long the read-only placeholders for missing protected paths (empty `.bashrc`, `.husky/`,
   * … in writable roots) stay after the sandbox's last run ended, so that runs in quick
   * succession find them in place; they are removed after that, or at `close()`. 0 removes each
   * run's placeholders when it ends. Default 3000 ms. Linux with the compiled launcher only:
   * without it placeholders are never removed.
   */
  readonly placeholderLingerMs?: number;
  /**
   * Start runs through the launcher's spawn server (default `true`; Linux with the compiled
   * launcher), or with this process's own `spawn` (a fork of this process per run). The server is
   * not used, whatever this says, where this process cannot open its pipes through
   * `/proc/<pid>/fd` (a `hidepid` /proc or an LSM policy).
   */
  readonly spawnServer?: boolean;
  /**
   * Prepare the next run as soon as one has ended (default `true`; Linux, through the spawn
   * server; while runs follow each other, i.e. the run that ended was spawned less than
   * `placeholderLingerMs` after the one before it ended, so a sandbox used once, or every few
   * seconds, prepares nothing): the
   * server starts it as far as bwrap's command (namespaces, mounts, seccomp, cgroups, the proxy
   * listener), with a launcher in the sandbox that waits for the command, its environment and
   * working directory, so a spawn costs little more than the command's own exec. A spawn takes it
   * only if a run planned at that moment would be the same run: the same options and pipes, the
   * same host files at every path the plan depends on, the same nested repositories, no change to
   * the mounts or staged /etc files since; otherwise it is ended and the spawn starts from the
   * beginning. Unused for `placeholderLingerMs` it is ended (it keeps the placeholders and a few
   * processes); with `placeholderLingerMs: 0` nothing is prepared.
   */
  readonly prestart?: boolean;
  /** Overrides the detected platform (tests). */
  readonly platform?: 'linux' | 'darwin';
}

/** Options of one run. */
export interface SpawnOptions {
  /** Working directory inside the sandbox; must be granted. Undefined = the first rw grant, else the sandbox HOME. */
  readonly cwd?: string;
  /** Extra variables for this run; secret-looking names need an exact `env:NAME` grant. */
  readonly env?: Readonly<Record<string, string>>;
  /** Data for standard input (needs the `stdin` capability). Undefined = /dev/null. */
  readonly stdin?: string | Uint8Array | Readable;
  /** Wall-clock limit; capped by the policy's `limits.timeMs` (default 60 s). */
  readonly timeoutMs?: number;
  /** Bytes kept per stream; capped by the policy's `limits.outputBytes` (default 1 MiB). */
  readonly maxOutputBytes?: number;
  /** Aborting kills the whole run. */
  readonly signal?: AbortSignal;
  /**
   * A long-lived service (e.g. an MCP server that bounds each message itself): no default
   * wall-clock limit and no default output cap; the policy's explicit `limits.timeMs` and
   * `limits.outputBytes` and this spawn's `timeoutMs`/`maxOutputBytes` still apply, and so do the
   * memory, process and file limits. Undefined/false: an ordinary run (60 s, 1 MiB by default).
   */
  readonly service?: boolean;
}

/** How a run ended. */
export interface SandboxExit {
  /** Exit code of the command (bubblewrap passes it through); null when killed by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  /** True when stdout or stderr went over the output cap and was cut. */
  readonly truncated: boolean;
  readonly truncatedStreams: { readonly stdout: boolean; readonly stderr: boolean };
  /** Refusals observed for this run (egress denials from its own proxy). */
  readonly violations: readonly SandboxViolation[];
  readonly runId: string;
  readonly durationMs: number;
}

/** A running sandboxed process. */
export interface SandboxProcess {
  readonly runId: string;
  /**
   * Host pid of the run's outermost process: the supervising launcher (Linux with the compiled
   * launcher; bubblewrap is its child), else bubblewrap, or sandbox-exec on macOS.
   */
  readonly pid: number;
  /** Capped output; empty when the stream capability is not granted. */
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Ends the whole process tree. */
  kill(): void;
  readonly exit: Promise<SandboxExit>;
}

/** An independent sandbox: its own policy, proxy listeners and state. */
export interface Sandbox {
  readonly policy: SandboxPolicy;
  readonly probe: SandboxProbe;
  /** Weaker modes in effect for every run (each one named in `allowDegraded`). */
  readonly degraded: readonly DegradedMode[];
  /** SHA-256 of the canonical policy; stamped on every `sandbox.spawn` audit event. */
  readonly policyHash: string;
  spawn(argv: readonly string[], options?: SpawnOptions): Promise<SandboxProcess>;
  /** Ends every run, closes every listener and removes the work directory. */
  close(): Promise<void>;
}
