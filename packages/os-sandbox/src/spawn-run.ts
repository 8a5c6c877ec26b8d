import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TrustError, createPrincipal, isTrustError, type Principal } from '@trust/core';
import { SANDBOX_LAYOUT, type LinuxPlan } from './bwrap-plan.js';
import type { RunCgroups } from './cgroup.js';
import { buildSandboxEnv } from './env.js';
import type { Launched } from './launched.js';
import type { createLinuxPlanner } from './linux-run.js';
import { proxyEnv } from './network.js';
import type { createPlaceholderKeeper } from './placeholders.js';
import type { PreparedRuns } from './prepared-runs.js';
import { runBudget } from './run-budget.js';
import { superviseRun } from './run-handle.js';
import type { RunServer } from './run-server.js';
import type { RunSlots } from './run-slots.js';
import { startRun } from './run-start.js';
import type { SandboxConfig } from './sandbox-config.js';
import type { SandboxProcess, SpawnOptions } from './sandbox-types.js';
import { planSeatbelt, type DarwinPlan } from './seatbelt-plan.js';
import { evaluateSpawnRequest } from './spawn-request.js';

/** Records one audit event of a sandbox (see `CreateSandboxOptions.audit`). */
export type SandboxAuditFn = (
  principal: Principal,
  action: string,
  target: string,
  decision: 'allow' | 'deny',
  extra?: { code?: string; rule?: string; details?: Record<string, unknown> },
) => void;

/** What a sandbox's runs are spawned with. */
export interface SpawnContext {
  readonly config: SandboxConfig;
  readonly workDir: string;
  readonly slots: RunSlots;
  readonly prepared: PreparedRuns;
  readonly server: RunServer;
  readonly linux: ReturnType<typeof createLinuxPlanner>;
  readonly keeper: ReturnType<typeof createPlaceholderKeeper> | undefined;
  readonly audit: SandboxAuditFn;
  /** Keeps a background promise (a slot's release) for `close()` to wait on. */
  readonly track: (p: Promise<void>) => void;
  readonly running: Set<SandboxProcess>;
  readonly isClosed: () => boolean;
}

/**
 * A sandbox's `spawn`: validates the request once, takes a slot (or the run prepared ahead),
 * plans and starts the run, and supervises it; every refusal before the process starts is
 * audited with its code.
 *
 * @example
 * const spawn = createSpawner(ctx);
 * const p = await spawn(['/bin/true'], { cwd: '/srv/project' });
 */
export function createSpawner(ctx: SpawnContext) {
  const { config, workDir, slots, prepared: ahead, server, linux, keeper, audit, track, running } = ctx;
  const { policy, platform, launcher, degraded, policyHash, seccompFilter, sourceEnv, assertGrantsReal } = config;
  const caps = policy.capabilities;

  return async function spawnRun(argv: readonly string[], opts: SpawnOptions = {}): Promise<SandboxProcess> {
    if (ctx.isClosed())
      throw new TrustError('SANDBOX_CLOSED', 'this sandbox was closed', { hint: 'create a new sandbox' });
    // Every caller-supplied value is checked once, here, before anything is planned; from now on
    // only the validated, frozen copy is used (the caller's objects are not read again).
    const checked = evaluateSpawnRequest(argv, opts);
    if (!checked.allow) {
      // Recorded like every refusal, under a principal of its own (no run exists); the target
      // names the program only when argv itself passed.
      const target =
        checked.code === 'SANDBOX_ARGV_INVALID' ? '(invalid argv)' : String((argv as readonly unknown[])[0]);
      audit(createPrincipal('process', randomUUID()), 'sandbox.spawn', target, 'deny', {
        code: checked.code,
        details: { policy: policyHash, reason: checked.reason },
      });
      throw new TrustError(checked.code, checked.reason, {
        ...(checked.hint ? { hint: checked.hint } : {}),
        decision: checked,
      });
    }
    const request = checked.request;
    argv = request.argv;
    if (opts.stdin !== undefined && !caps.has('stdin')) {
      throw new TrustError(
        'SANDBOX_CAPABILITY_MISSING',
        'stdin data was passed but the policy does not grant "stdin"',
        { hint: 'add "stdin" to the capabilities' },
      );
    }
    // The prepared run comes with its slot; abandoned (below) unless this run is what it prepared.
    let unused = await ahead.take();
    const slot = unused?.slot ?? (await slots.take());
    const { runId, principal, violations, runDir, proxyPort } = slot;
    const started = Date.now();
    ahead.noteSpawn();
    const cleanups: (() => void | Promise<void>)[] = [];
    const cleanup = async (): Promise<void> => {
      for (const c of cleanups.reverse()) {
        try {
          await c();
        } catch {
          /* best effort */
        }
      }
    };
    // A sweep of kept placeholders never runs while this run is planned or live.
    await keeper?.beginRun();
    let placeholders: LinuxPlan['placeholders'] = [];
    cleanups.push(() => keeper?.endRun(placeholders));
    let slotReleased = false;
    const releaseSlot = (): void => {
      if (slotReleased) return;
      slotReleased = true;
      track(slot.release());
    };
    try {
      const home = platform === 'linux' ? SANDBOX_LAYOUT.home : join(runDir ?? workDir, 'home');
      const tmp = platform === 'linux' ? SANDBOX_LAYOUT.tmp : join(runDir ?? workDir, 'tmp');
      const env = buildSandboxEnv(policy, {
        source: sourceEnv,
        ...(request.env ? { explicit: request.env } : {}),
        home,
        tmpdir: tmp,
        ...(proxyPort !== undefined ? { proxy: proxyEnv(proxyPort) } : {}),
      });

      const { timeoutMs, maxOutput } = runBudget(policy.limits, request, opts.service === true);
      const firstRw = caps.fsGrants.find((g) => g.mode === 'rw')?.path;
      const cwd = request.cwd ?? firstRw ?? home;
      if (cwd !== home && caps.fsGrant(cwd).access === 'none') {
        throw new TrustError('SANDBOX_CWD_NOT_GRANTED', `working directory ${cwd} is not inside a granted directory`, {
          hint: `grant it with "fs:rw:${cwd}" or "fs:ro:${cwd}"`,
        });
      }

      let file = launcher?.path ?? '';
      let args: readonly string[] = [];
      let argsFd: readonly string[] | undefined;
      // With the launcher on the host side, it supervises bwrap on the lifeline (see run-start.ts).
      const lifeline = platform === 'linux' && launcher !== undefined;
      const wants = { stdin: opts.stdin !== undefined, stdout: caps.has('stdout'), stderr: caps.has('stderr') };
      let cgroups: RunCgroups | undefined;
      let child: Launched | undefined;
      if (platform === 'linux') {
        assertGrantsReal();
        // A run prepared for this slot takes the command if a run planned now would be the same
        // run: the plan is a function of the host facts, the slot and the pipes, so the same facts
        // and pipes make the same request. Otherwise it is ended, and this run starts from the
        // beginning.
        const prepared = unused;
        const known = linux.facts();
        if (prepared) {
          const w = prepared.wants;
          const same =
            known.key === prepared.factsKey &&
            w.stdin === wants.stdin &&
            w.stdout === wants.stdout &&
            w.stderr === wants.stderr;
          unused = undefined;
          if (same && (await prepared.launched.start({ argv, env, cwd }))) {
            child = prepared.launched;
            cgroups = prepared.cgroups;
            placeholders = prepared.placeholders;
            keeper?.endRun(prepared.placeholders); // this run's own beginRun covers them now
            prepared.forgetAtExit();
          } else {
            await ahead.abandon(prepared, false);
          }
        }
        if (!child) {
          cgroups = linux.cgroups(runId);
          const run = linux.plan(slot, cgroups, { argv, env, cwd }, known);
          placeholders = run.plan.placeholders;
          file = run.file;
          args = run.args;
          argsFd = run.plan.options;
        }
        const cg = cgroups;
        if (cg) cleanups.push(() => cg.remove());
      } else {
        mkdirSync(home, { mode: 0o700 });
        mkdirSync(tmp, { mode: 0o700 });
        const plan: DarwinPlan = planSeatbelt(policy, argv, {
          env,
          home,
          tmpdir: tmp,
          ...(proxyPort !== undefined ? { proxyPort } : {}),
        });
        file = plan.file;
        args = plan.args;
      }

      audit(principal, 'sandbox.spawn', argv[0]!, 'allow', {
        details: {
          runId,
          policy: policyHash,
          platform,
          capabilities: caps.toStrings(),
          degraded,
          cwd,
          // A service run has no budget: null (audit records are JSON, which has no Infinity).
          timeoutMs: Number.isFinite(timeoutMs) ? timeoutMs : null,
          maxOutput: Number.isFinite(maxOutput) ? maxOutput : null,
          service: opts.service === true,
          placeholders: placeholders.length,
          prepared: child !== undefined,
        },
      });
      if (degraded.length > 0) {
        audit(principal, 'sandbox.degraded', argv[0]!, 'allow', {
          rule: 'allowDegraded',
          details: { runId, degraded },
        });
      }

      // Started already when the prepared run took the command.
      child ??= await startRun(server, { platform, lifeline, file, args, argsFd, seccompFilter, wants, env });
      slots.prepareSpare();
      if (opts.stdin !== undefined && child.stdin) {
        child.stdin.on('error', () => undefined);
        if (typeof opts.stdin === 'string' || opts.stdin instanceof Uint8Array) child.stdin.end(opts.stdin);
        else opts.stdin.pipe(child.stdin);
      }
      const program = argv[0]!;
      return superviseRun({
        child,
        runId,
        violations,
        started,
        file,
        lifeline,
        timeoutMs,
        maxOutput,
        signal: opts.signal,
        onEnd: () => ahead.prepareNext(wants),
        cleanup,
        releaseSlot,
        running,
        auditExit: (r) =>
          audit(principal, 'sandbox.exit', program, 'allow', {
            ...(r.timedOut ? { code: 'SANDBOX_TIMEOUT' } : {}),
            details: {
              runId,
              code: r.code,
              signal: r.signal,
              timedOut: r.timedOut,
              truncated: r.truncated,
              violations: r.violations.length,
              durationMs: r.durationMs,
            },
          }),
      });
    } catch (err) {
      // Every refusal before the process starts is recorded, with its code.
      audit(principal, 'sandbox.spawn', argv[0]!, 'deny', {
        code: isTrustError(err) ? err.code : 'SANDBOX_SPAWN_FAILED',
        details: { runId },
      });
      if (unused) await ahead.abandon(unused, false);
      await cleanup();
      releaseSlot();
      throw err;
    }
  };
}
