import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants as fsConstants, openSync, readdirSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import { TrustError } from '@trust/core';
import type { Launched, LaunchedExit } from './launched.js';
import {
  encodeAck,
  encodeCommand,
  encodeKill,
  encodeRequest,
  type AwaitedCommand,
  type LaunchRequest,
} from './launcher-wire.js';

export type { AwaitedCommand, LaunchRequest } from './launcher-wire.js';

/** A run started as far as its command (see `SpawnServer.prepare`). */
export interface PreparedLaunch extends Launched {
  /**
   * Hands the run its command. False when it did not take it: it had ended, or gone stale (the
   * server saw a change its mounts may not show) and is being ended; its `closed` settles then.
   */
  start(command: AwaitedCommand): Promise<boolean>;
}

/** The launcher's spawn server (`--serve`), one per sandbox. */
export interface SpawnServer {
  /** False once the server has exited (its runs ended with it); start another for new runs. */
  readonly alive: boolean;
  /**
   * Whether this process can open the server's descriptors through `/proc/<pid>/fd`, which every
   * run needs (checked once, at start); when not, close the server and spawn runs directly.
   */
  readonly usable: boolean;
  launch(request: LaunchRequest): Promise<Launched>;
  /**
   * Starts a run as far as its command: `request` names the launcher in the sandbox with
   * `--await` as bwrap's command (and no `--chdir` or environment). Until `start` it does not
   * keep this process alive, and its stdin, stdout and stderr are null: its pipes become streams
   * once it has taken its command (so that nothing they say is missed).
   */
  prepare(request: LaunchRequest): Promise<PreparedLaunch>;
  /** Ends the server; runs still going end with it (their lifelines close). */
  close(): void;
}

interface Pending {
  resolve(l: PreparedLaunch): void;
  reject(e: Error): void;
}

interface Running {
  exited(exit: LaunchedExit): void;
}

const signalName = (n: number): NodeJS.Signals | null =>
  (Object.entries(osConstants.signals).find(([, v]) => v === n)?.[0] as NodeJS.Signals | undefined) ?? null;

/**
 * Opens the server's end of a run's pipe through /proc (a pipe reopened there is the same pipe); returns this process's
 * descriptor.
 */
function openEnd(serverPid: number, fd: number, write: boolean): number {
  return openSync(
    `/proc/${serverPid}/fd/${fd}`,
    (write ? fsConstants.O_WRONLY : fsConstants.O_RDONLY) | fsConstants.O_NONBLOCK,
  );
}

/**
 * Starts the launcher at `launcherPath` as a spawn server. Each `launch` then costs this process
 * a write and a few `open`s instead of a fork of itself (which blocks the event loop for about a
 * millisecond and a half here). The server's pipes are unref'd: an idle sandbox does not keep
 * the process alive; running runs do, through their own pipes.
 *
 * @example
 * const server = startSpawnServer(launcher.path);
 * const run = await server.launch({
 *   args: ['--', '/usr/bin/bwrap', '--args', '3', '--', '/bin/true'],
 *   options,
 *   stdin: false,
 *   stdout: true,
 *   stderr: true,
 * });
 */
export function startSpawnServer(launcherPath: string): SpawnServer {
  const child: ChildProcess = spawn(launcherPath, ['--serve'], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { PATH: '/usr/bin:/bin' },
  });
  const pending = new Map<number, Pending>();
  const running = new Map<number, Running>();
  // Prepared runs not yet handed a command (they keep nothing alive), and those being handed one.
  const idle = new Set<number>();
  const handing = new Map<number, (taken: boolean) => void>();
  let nextId = 1;
  let gone: Error | undefined;
  const control = child.stdin!;
  const replies = child.stdout! as Socket;
  // The server's replies keep this process alive only while a run is starting or running (a
  // prepared run that waits for its command does not).
  const holdWhileBusy = (): void => {
    const busy = pending.size + handing.size > 0 || [...running.keys()].some((id) => !idle.has(id));
    if (busy) replies.ref();
    else replies.unref();
  };
  control.on('error', () => undefined);
  const send = (b: Buffer): void => {
    if (!gone) control.write(b);
  };
  const fail = (err: Error): void => {
    gone ??= err;
    for (const p of pending.values()) p.reject(gone);
    pending.clear();
    for (const h of handing.values()) h(false);
    handing.clear();
    // The runs end with the server (their lifelines close); their exit is unknown here.
    for (const r of running.values()) r.exited({ code: null, signal: 'SIGKILL' });
    running.clear();
    idle.clear();
    holdWhileBusy();
  };
  child.on('error', (e) => fail(e));
  child.on('exit', () => fail(new Error('the sandbox spawn server exited')));

  const started = (id: number, pid: number, fds: number[]): void => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    const own: number[] = [];
    try {
      fds.forEach((fd, k) => {
        own.push(fd >= 0 ? openEnd(child.pid!, fd, k === 0) : -1);
      });
    } catch (err) {
      for (const fd of own) if (fd >= 0) closeSync(fd);
      send(encodeKill(id, osConstants.signals.SIGKILL));
      p.reject(
        new TrustError('SANDBOX_UNAVAILABLE', `could not open the run's pipes through /proc/${child.pid}/fd`, {
          cause: err,
          hint: 'this host restricts /proc access to child processes; pass spawnServer: false to createSandbox',
        }),
      );
      return;
    } finally {
      send(encodeAck(id));
    }
    let exit: LaunchedExit | undefined;
    let done = false;
    let settle: (e: LaunchedExit) => void = () => undefined;
    const closed = new Promise<LaunchedExit>((resolve) => (settle = resolve));
    const open = new Set<Socket>();
    const maybeClose = (): void => {
      if (exit && open.size === 0) settle(exit);
    };
    // The pipes become streams when the run has its command: a prepared run's output could
    // otherwise end (and say so) before anyone listens.
    let ends: (Socket | null)[] | undefined;
    const streams = (): (Socket | null)[] => {
      ends = own.map((fd, k) => (fd >= 0 ? new Socket({ fd, readable: k !== 0, writable: k === 0 }) : null));
      for (const s of ends.slice(1)) {
        if (!s) continue;
        open.add(s);
        s.on('error', () => undefined);
        s.once('close', () => {
          open.delete(s);
          maybeClose();
        });
      }
      ends[0]?.on('error', () => undefined);
      return ends;
    };
    if (!idle.has(id)) streams();
    running.set(id, {
      exited(e) {
        done = true;
        exit = e;
        // Never handed a command: nobody will read its pipes.
        if (!ends) for (const fd of own) if (fd >= 0) closeSync(fd);
        // Ended with the server: nothing will write to these pipes any more.
        if (e.code === null && gone) for (const s of open) s.destroy();
        maybeClose();
      },
    });
    p.resolve({
      pid,
      get stdin() {
        return ends?.[0] ?? null;
      },
      get stdout() {
        return ends?.[1] ?? null;
      },
      get stderr() {
        return ends?.[2] ?? null;
      },
      kill(signal) {
        if (done) return;
        // A prepared run being ended is waited for, like any run.
        idle.delete(id);
        holdWhileBusy();
        send(encodeKill(id, osConstants.signals[signal]));
      },
      closed,
      start(command) {
        if (done || gone || !idle.has(id) || handing.has(id)) return Promise.resolve(false);
        return new Promise<boolean>((resolve) => {
          handing.set(id, (taken) => {
            if (taken) {
              idle.delete(id);
              streams();
            }
            resolve(taken);
          });
          holdWhileBusy();
          send(encodeCommand(id, command));
        });
      },
    });
  };

  let buffered = '';
  replies.setEncoding('utf8');
  replies.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const [kind, ...rest] = buffered.slice(0, nl).split(' ');
      buffered = buffered.slice(nl + 1);
      const n = rest.map(Number);
      const id = n[0]!;
      if (kind === 'S') started(id, n[1]!, n.slice(2, 5));
      else if (kind === 'X') {
        running.get(id)?.exited({ code: n[1]! >= 0 ? n[1]! : null, signal: n[2]! > 0 ? signalName(n[2]!) : null });
        running.delete(id);
        idle.delete(id);
      } else if (kind === 'G' || kind === 'N') {
        const h = handing.get(id);
        handing.delete(id);
        h?.(kind === 'G');
      } else if (kind === 'F') {
        const p = pending.get(id);
        pending.delete(id);
        idle.delete(id);
        p?.reject(
          new TrustError('SANDBOX_UNAVAILABLE', `the sandbox spawn server could not start a run (errno ${n[1]})`, {
            hint: 'check the process and file limits of this host',
          }),
        );
      }
    }
    holdWhileBusy();
  });
  // Listing the server's descriptors takes the same access check as opening one of them.
  let usable = false;
  try {
    usable = readdirSync(`/proc/${child.pid}/fd`).length > 0;
  } catch {
    /* hidepid, an LSM policy, or the server already gone */
  }
  child.unref();
  replies.unref();
  (control as unknown as { unref?: () => void }).unref?.();

  const request = (r: LaunchRequest, kind: 'R' | 'P'): Promise<PreparedLaunch> => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    if (kind === 'P') idle.add(id);
    return new Promise<PreparedLaunch>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      holdWhileBusy();
      send(encodeRequest(id, r, kind));
    });
  };
  return {
    get alive() {
      return gone === undefined;
    },
    usable,
    launch: (r) => request(r, 'R'),
    prepare: (r) => request(r, 'P'),
    close() {
      control.end();
    },
  };
}
