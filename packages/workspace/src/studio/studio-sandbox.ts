// Sandbox runs started from the studio: each one under its own `createSandbox` (its policy, its
// egress proxy and audit sink), its output and egress decisions kept in a bounded run log for the
// studio's polls, and its record appended to <TRUST_HOME>/sandbox-runs.jsonl at exit, like
// `trust sandbox` does, so the audit timeline shows it.
import { finished } from 'node:stream/promises';
import type { ControlServerOptions } from '../control/index.js';
import { controlError } from '../control/index.js';
import { GENESIS_HASH, sealEvent, type AuditEvent, type AuditInput, type AuditSink } from '@trust/core';
import { checkWorkspaceOptions } from '../options.js';
import { appendSandboxRun, createEgressCollector, sandboxRunRecord } from '../sandbox-runs/sandbox-runs.js';
import { recordEgressPolicy, redactPolicyHeaders } from '../sandbox-runs/sandbox-runs-policy.js';
import { createRunLog, type RunExit, type RunLog } from './studio-run-log.js';
import { checkStartRequest, problemsOf, STUDIO_RUN_CAPS, type StudioRunCaps } from './studio-sandbox-request.js';
import { studioSandboxOptionsSchema } from './studio-sandbox-options.js';

type SandboxControl = NonNullable<ControlServerOptions['sandboxControl']>;
type LiveRun = ReturnType<SandboxControl['get']>;

/** Options of {@link createStudioSandbox}. */
export interface StudioSandboxOptions {
  /** The run log file (`<TRUST_HOME>/sandbox-runs.jsonl`). */
  readonly runsFile: string;
  /** Source of granted variables and `{ "env": NAME }` header values. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the compiled sandbox launcher is cached. */
  readonly launcherCacheDir: string;
  /** Runs starting or running at once. Default 4. */
  readonly maxConcurrent?: number;
  /** Runs kept for the studio (finished ones are dropped oldest first). Default 50. */
  readonly maxKept?: number;
  readonly caps?: StudioRunCaps;
  /**
   * Loopback ports no run may reach, whatever its egress policy allows (the control server's own
   * port: a run allowed 127.0.0.1 must not talk to the API that started it). Read at each start.
   */
  readonly protectedPorts?: () => readonly number[];
  /** Called when a run could not be recorded in the run log. */
  readonly onRecordError?: (err: unknown) => void;
}

interface Entry {
  view: LiveRun;
  readonly log: RunLog;
  kill?: () => void;
  done?: Promise<void>;
}

/**
 * The host side of the studio's sandbox routes, plus `close()` (kills every run, waits for each
 * sandbox to close).
 *
 * @example
 * const sandbox = createStudioSandbox({ runsFile, env: io.env, launcherCacheDir });
 * await createControlServer({ agents, sandboxControl: sandbox });
 */
export function createStudioSandbox(options: StudioSandboxOptions): SandboxControl & { close(): Promise<void> } {
  checkWorkspaceOptions('createStudioSandbox', studioSandboxOptionsSchema, options);
  const caps = options.caps ?? STUDIO_RUN_CAPS;
  const maxConcurrent = options.maxConcurrent ?? 4;
  const maxKept = options.maxKept ?? 50;
  const runs = new Map<string, Entry>();
  let active = 0;
  let closed = false;

  const view = (e: Entry): LiveRun => {
    const c = e.log.counts();
    return { ...e.view, state: e.log.state(), counts: { allowed: c.allowed, denied: c.denied } };
  };
  const find = (id: string): Entry => {
    const e = runs.get(id);
    if (e === undefined)
      throw controlError('CONTROL_NOT_FOUND', `no sandbox run ${id} here`, 'list the runs with GET /sandbox/runs');
    return e;
  };
  const forgetOld = (): void => {
    const finished = [...runs].filter(([, e]) => e.log.state() === 'exited');
    while (runs.size > maxKept && finished.length > 0) runs.delete(finished.shift()![0]);
  };

  const start: SandboxControl['start'] = async (input) => {
    if (closed) throw controlError('CONTROL_CONFLICT', 'the studio is stopping', 'start the studio again');
    if (active >= maxConcurrent)
      throw controlError(
        'CONTROL_BUSY',
        `${active} sandbox runs are already running (at most ${maxConcurrent} at once)`,
        'wait for one to end or kill one',
      );
    // Taken before the first await, so concurrent requests cannot pass the cap together.
    active += 1;
    let started = false;
    try {
      const checked = await checkStartRequest(input, options.env, caps);
      if (!checked.ok) return checked;
      const s = checked.start;
      const { createSandbox } = await import('@trust/os-sandbox');
      const log = createRunLog();
      const egress = createEgressCollector(liveSink(log));
      let sandbox: Awaited<ReturnType<typeof createSandbox>>;
      let child: Awaited<ReturnType<typeof sandbox.spawn>>;
      const startedAt = new Date();
      try {
        sandbox = await createSandbox(s.policy as never, {
          env: options.env,
          audit: egress.sink,
          launcherCacheDir: options.launcherCacheDir,
          ...(s.egress
            ? { egress: s.egress.policy, guard: guardWith(s.egress.guard, options.protectedPorts?.() ?? []) }
            : {}),
        });
      } catch (e) {
        if (!isCoded(e)) throw e;
        return { ok: false, problems: problemsOf(e, 'policy') };
      }
      try {
        child = await sandbox.spawn(s.argv, {
          ...(s.cwd === undefined ? {} : { cwd: s.cwd }),
          ...(input.stdin === undefined ? {} : { stdin: input.stdin }),
          timeoutMs: s.limits.timeMs,
          maxOutputBytes: s.limits.outputBytes,
        });
      } catch (e) {
        await sandbox.close();
        if (!isCoded(e)) throw e;
        return {
          ok: false,
          problems: problemsOf(e, (e as { code: string }).code === 'SANDBOX_CWD_INVALID' ? 'cwd' : 'argv'),
        };
      }
      started = true;
      let killed = false;
      const entry: Entry = {
        view: {
          id: child.runId,
          argv: [...s.argv],
          startedAt: startedAt.toISOString(),
          state: 'running',
          policy: input.policy,
          // What the studio shows of the policy: literal header values are secrets, never sent back.
          egress: input.egress ? redactPolicyHeaders(input.egress) : null,
          limits: s.limits,
          counts: { allowed: 0, denied: 0 },
        },
        log,
        kill: () => {
          killed = true;
          child.kill();
        },
      };
      runs.set(child.runId, entry);
      const drained = (['stdout', 'stderr'] as const).map((stream) => {
        child[stream].setEncoding('utf8');
        child[stream].on('data', (d: string) => log.output(stream, d));
        return finished(child[stream]).catch(() => undefined);
      });
      entry.done = (async () => {
        let exit: RunExit;
        try {
          const x = await child.exit;
          await Promise.all(drained);
          exit = {
            code: x.code,
            signal: x.signal,
            timedOut: x.timedOut,
            truncated: x.truncated,
            killed,
            durationMs: x.durationMs,
          };
          try {
            appendSandboxRun(
              options.runsFile,
              sandboxRunRecord({
                runId: x.runId,
                argv: s.argv,
                policy: s.policy,
                exit: x,
                egress: egress.events,
                egressPolicy: recordEgressPolicy(input.egress ?? null),
                startedAt,
              }),
            );
          } catch (err) {
            options.onRecordError?.(err);
          }
        } catch {
          exit = {
            code: null,
            signal: null,
            timedOut: false,
            truncated: false,
            killed,
            durationMs: Date.now() - startedAt.getTime(),
          };
        } finally {
          active -= 1;
          await sandbox.close().catch(() => undefined);
        }
        log.exit(exit);
        forgetOld();
      })();
      return { ok: true, run: view(entry) };
    } finally {
      if (!started) active -= 1;
    }
  };

  return {
    validate: async (input) => {
      const r = await checkStartRequest(input, options.env, caps);
      return r.ok ? { ok: true } : r;
    },
    start,
    list: () => [...runs.values()].reverse().map(view),
    get: (id) => view(find(id)),
    events: async (id, after, waitMs) => find(id).log.wait(after, waitMs),
    kill: async (id) => {
      const e = find(id);
      if (e.log.state() === 'exited')
        throw controlError('CONTROL_CONFLICT', `sandbox run ${id} has already ended`, 'start a new run');
      e.kill?.();
      await e.done;
      return view(e);
    },
    async close() {
      closed = true;
      const waits = [...runs.values()].filter((e) => e.log.state() === 'running');
      for (const e of waits) e.kill?.();
      await Promise.all(waits.map((e) => e.done));
    },
  };
}

/** The egress file's guard options with the host's protected ports added to its own. */
function guardWith(guard: Record<string, unknown>, ports: readonly number[]): never {
  const own = Array.isArray(guard.protectedPorts) ? (guard.protectedPorts as number[]) : [];
  return (ports.length === 0 ? guard : { ...guard, protectedPorts: [...new Set([...own, ...ports])] }) as never;
}

/** An audit sink that puts each egress decision of a run in its log as it happens; a chain of its own, nothing kept. */
function liveSink(log: RunLog): AuditSink {
  let prev = GENESIS_HASH;
  return {
    record(input: AuditInput): AuditEvent {
      const event = sealEvent(input, prev, new Date().toISOString());
      prev = event.hash;
      if (input.action.startsWith('egress'))
        log.egress({
          time: event.time,
          action: input.action,
          target: input.target,
          decision: input.decision,
          ...(input.rule ? { rule: input.rule } : {}),
          ...(input.code ? { code: input.code } : {}),
        });
      return event;
    },
  };
}

const isCoded = (e: unknown): e is { code: string; message: string } & Error =>
  e instanceof Error && typeof (e as { code?: unknown }).code === 'string';
