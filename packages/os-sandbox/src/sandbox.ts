import { spawn as spawnChild } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrustError, createPrincipal, isTrustError, type Principal } from '@trust/core';
import { SANDBOX_LAYOUT, type LinuxPlan } from './bwrap-plan.js';
import type { RunCgroups } from './cgroup.js';
import { decideDegraded, refuseDegraded } from './degraded.js';
import { buildSandboxEnv } from './env.js';
import { evaluateGrantRealPaths } from './grant-paths.js';
import { findTool, hasRlimits } from './host-files.js';
import { createPlaceholderKeeper, DEFAULT_PLACEHOLDER_LINGER_MS } from './placeholders.js';
import { prepareProtectedOverlay, refuseUnoverlaid, writableDirs } from './protected-overlay.js';
import { createNestedGitScanner } from './nested-git.js';
import { fromChildProcess, killGroup, type Launched } from './launched.js';
import { onProcessExit } from './on-exit.js';
import { createRunDirPool } from './run-dirs.js';
import { ensureLauncher, hideLauncher, verifyLauncher, type Launcher } from './launcher.js';
import {
  createRunAudit,
  defaultProxyFactory,
  floorGuard,
  grantedEgress,
  networkTierPolicy,
  proxyEnv,
  type EgressProxyHandle,
  type SandboxGuardOptions,
  type SandboxViolation,
} from './network.js';
import { capOutput } from './output-capture.js';
import { DEFAULT_OUTPUT_BYTES, DEFAULT_TIME_MS, parseSandboxPolicy, type SandboxPolicy, type SandboxPolicyInput } from './policy.js';
import { probeSandbox } from './probe.js';
import type { CreateSandboxOptions, Sandbox, SandboxExit, SandboxProcess, SpawnOptions } from './sandbox-types.js';
import { buildSeccompFilter, seccompArchOf } from './seccomp.js';
import { planSeatbelt, type DarwinPlan } from './seatbelt-plan.js';
import { startSpawnServer, type PreparedLaunch, type SpawnServer } from './spawn-server.js';
import { evaluatePolicyValues, evaluateSpawnRequest } from './spawn-request.js';
import { encodeBwrapArgs } from './launcher-wire.js';
import { createLinuxPlanner, LIFELINE_FD, type Wants } from './linux-run.js';
import { createAhead } from './ahead.js';
import { decideUnixSockets } from './unix-socket-mode.js';

export type { CreateSandboxOptions, Sandbox, SandboxExit, SandboxProcess, SpawnOptions } from './sandbox-types.js';

/** How long `kill()` waits for the supervising launcher to end a run before killing its group. */
const FORCE_KILL_AFTER_MS = 5_000;
/**
 * Creates an independent sandbox for one policy. Probes the host once, compiles (or verifies)
 * the launcher, and fails closed: `SANDBOX_UNAVAILABLE` when bubblewrap or user namespaces are
 * missing, `SANDBOX_DEGRADED_REFUSED` when the policy would need a weaker mode it did not name,
 * `SANDBOX_POLICY_INVALID` for a bad policy.
 *
 * @example
 * const sb = await createSandbox({ v: 1, capabilities: ['fs:rw:/srv/project', 'stdout', 'stderr'] });
 * const p = await sb.spawn(['/bin/ls', '-la'], { cwd: '/srv/project' });
 * const out = await readAll(p.stdout);
 * const { code } = await p.exit;
 * await sb.close();
 */
export async function createSandbox(input: SandboxPolicy | SandboxPolicyInput, options: CreateSandboxOptions = {}): Promise<Sandbox> {
  const policy = parseSandboxPolicy(input);
  const values = evaluatePolicyValues(policy);
  if (!values.allow) throw new TrustError(values.code, values.reason, { ...(values.hint ? { hint: values.hint } : {}), decision: values });
  const lingerMs = options.placeholderLingerMs ?? DEFAULT_PLACEHOLDER_LINGER_MS;
  if (!Number.isFinite(lingerMs) || lingerMs < 0) {
    throw new TrustError('SANDBOX_POLICY_INVALID', `placeholderLingerMs must be a finite number of milliseconds ≥ 0, got ${String(options.placeholderLingerMs)}`, {
      hint: 'pass e.g. { placeholderLingerMs: 3000 }, or 0 to remove placeholders after every run',
    });
  }
  const platform = options.platform ?? (process.platform === 'darwin' ? 'darwin' : process.platform === 'linux' ? 'linux' : undefined);
  if (!platform) {
    throw new TrustError('SANDBOX_UNAVAILABLE', `no sandbox backend for ${process.platform}`, { hint: 'run on Linux (bubblewrap) or macOS (seatbelt)' });
  }
  const caps = policy.capabilities;
  const coarse = caps.egressTier() === 'coarse';
  const fine = caps.has('http') || caps.has('tcp') || caps.has('udp');
  if (fine && !options.egress) {
    throw new TrustError('SANDBOX_POLICY_INVALID', 'the http/tcp/udp capability needs an egress policy to judge destinations', {
      hint: 'pass createSandbox(policy, { egress: allowHosts([...]) }); without one there is no reach',
    });
  }
  let launcher: Launcher | undefined;
  let launcherError: unknown;
  if (platform === 'linux' && options.bridge !== 'socat') {
    try {
      launcher = options.launcher
        ? verifyLauncher(options.launcher.path, options.launcher.sha256)
        : await ensureLauncher({
            ...(options.launcherCacheDir ? { cacheDir: options.launcherCacheDir } : {}),
            ...(options.launcherVerify ? { verify: options.launcherVerify } : {}),
          });
    } catch (err) {
      // A tampered launcher (or an unsafe cache) is never silently replaced by the fallback.
      if (isTrustError(err, 'SANDBOX_LAUNCHER_TAMPERED') || isTrustError(err, 'SANDBOX_LAUNCHER_CACHE_UNSAFE') || options.launcher) throw err;
      launcherError = err;
    }
  }
  // The launcher's directory is out of every run's reach: no writable grant may lie inside it, and
  // one that contains it gets it hidden (see Launcher.hideDir), so a run cannot rewrite what the
  // host runs next.
  const planPolicy = launcher ? hideLauncher(policy, launcher.hideDir) : policy;
  const fallbackBash = launcher ? undefined : findTool(['/usr/bin/bash', '/bin/bash']);
  const fallback = launcher ? undefined : { socat: findTool(['/usr/bin/socat', '/bin/socat']), prlimit: findTool(['/usr/bin/prlimit', '/bin/prlimit']) };
  const probe =
    options.probe ??
    (await probeSandbox({ ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}), ...(launcher ? { launcherPath: launcher.path } : {}) }));
  if (platform === 'linux') {
    if (!probe.bwrap) throw new TrustError('SANDBOX_UNAVAILABLE', 'bubblewrap is not installed', { hint: probe.notes.join('; ') || 'apt-get install bubblewrap' });
    if (!probe.userns) throw new TrustError('SANDBOX_UNAVAILABLE', 'bubblewrap cannot create a user namespace on this host', { hint: probe.notes.join('; ') });
  } else if (!probe.seatbelt && !options.probe) {
    throw new TrustError('SANDBOX_UNAVAILABLE', '/usr/bin/sandbox-exec is missing', { hint: 'seatbelt ships with macOS; it cannot be installed separately' });
  }
  const degraded = decideDegraded(policy, probe);
  // The coarse tier (network/sockets) is floored: its own namespace, the run's proxy, any public
  // host, strict guard. Only without network namespaces does it share the host network (degraded).
  // (On macOS the seatbelt profile allows only the proxy port, whatever the probe says about namespaces.)
  const floored = coarse && (platform === 'darwin' || !degraded.includes('shared-network'));
  const brokered = fine || floored;
  // Datagrams need the launcher's bridge, so the floored tier offers UDP only when it exists.
  const udp = caps.has('udp') || (floored && platform === 'linux' && launcher !== undefined);
  // The launcher makes the run's network namespace and bridges it from outside when it can (see
  // its --netns): two binds and an exec fewer per run than the bridge inside the sandbox.
  // Every run's network namespace, with or without bridges, is the launcher's where it can make
  // one: the spawn server then makes it ahead of the run (see the launcher's warm.c).
  const launcherNetwork = platform === 'linux' && launcher !== undefined && probe.launcherNetns && !degraded.includes('shared-network');
  const bridgeOutside = brokered && launcherNetwork;
  // The launcher pins protected paths (and nested repositories) in a namespace of its own.
  const launcherPins = platform === 'linux' && launcher !== undefined && probe.pinNamespace;
  const runPolicy = floored ? (options.egress ?? networkTierPolicy()) : options.egress;
  const runGuard: SandboxGuardOptions = floored ? floorGuard(options.guard) : { mode: policy.network.guard, ...options.guard };
  const sourceHome = (options.env ?? process.env).HOME;
  // Grants must name real paths; checked again at every spawn, since a run can plant a symlink.
  const assertGrantsReal = (): void => {
    if (platform !== 'linux') return;
    const d = evaluateGrantRealPaths(policy, sourceHome);
    if (!d.allow) throw new TrustError(d.code, d.reason, { hint: d.hint, decision: d });
  };
  assertGrantsReal();
  const policyHash = createHash('sha256')
    .update(
      JSON.stringify({
        v: policy.v,
        capabilities: caps.toStrings(),
        systemRoots: policy.systemRoots,
        hiddenPaths: policy.hiddenPaths,
        protectedPaths: policy.protectedPaths,
        unixSockets: policy.unixSockets,
        limits: Object.fromEntries(Object.entries(policy.limits).sort(([a], [b]) => a.localeCompare(b))),
        network: policy.network,
        allowDegraded: policy.allowDegraded,
      }),
    )
    .digest('hex');
  // One AF_UNIX rule in every mode, or a refusal (see decideUnixSockets).
  const sharedNetwork = degraded.includes('shared-network');
  if (platform === 'linux' && decideUnixSockets(policy, { launcherPins, sharedNetwork, socatBridge: brokered && !launcher })) degraded.push('open-unix-sockets');
  const seccompArch = seccompArchOf(process.arch);
  // socket(AF_UNIX) is refused unless the policy names unixSockets; a bridge inside the sandbox
  // needs it, and the launcher there refuses it itself once the bridge is up (--block-unix).
  const allowUnix = policy.unixSockets.length > 0 || (brokered && !bridgeOutside);
  const seccompFilter =
    platform === 'linux' && !degraded.includes('no-seccomp') && seccompArch
      ? buildSeccompFilter(seccompArch, { allowNetlinkRoute: degraded.includes('shared-network'), allowUnix })
      : undefined;
  if (platform === 'linux' && !launcher) {
    if (caps.has('udp')) {
      throw new TrustError('SANDBOX_UNAVAILABLE', 'the udp capability needs the sandbox launcher (its datagram bridge has no socat fallback)', {
        cause: launcherError,
        hint: 'install a C compiler (apt-get install gcc libc6-dev) and do not force bridge: "socat"',
      });
    }
    const needBridge = brokered && !fallback?.socat;
    const needLimits = hasRlimits(policy) && !fallback?.prlimit;
    if (needBridge || needLimits) {
      throw new TrustError('SANDBOX_UNAVAILABLE', 'the sandbox launcher could not be built and the socat/prlimit fallback is missing', {
        cause: launcherError,
        hint: 'install a C compiler (apt-get install gcc libc6-dev), or socat and util-linux',
      });
    }
    if ((policy.limits.pids !== undefined && probe.cgroups.pids) || (policy.limits.memoryBytes !== undefined && probe.cgroups.memory)) {
      // Joining a cgroup before bwrap starts needs the launcher; without it the limits are rlimits only.
      refuseDegraded(policy, policy.limits.pids !== undefined ? 'no-pids-limit' : 'no-memory-limit', 'cgroup limits need the compiled launcher', 'install a C compiler');
    }
  }
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'trust-sandbox-'));
  const ownsWorkDir = options.workDir === undefined;
  // Removed by close(), or when the process exits without it.
  const removeWorkDir = (): void => rmSync(workDir, { recursive: true, force: true });
  if (ownsWorkDir) onProcessExit(removeWorkDir, true);
  // Empty read-only mount sources for protected and hidden paths.
  const empty = { file: join(workDir, 'empty'), dir: join(workDir, 'empty.d') };
  if (!existsSync(empty.file)) writeFileSync(empty.file, '', { mode: 0o444 });
  if (!existsSync(empty.dir)) mkdirSync(empty.dir, { mode: 0o555 });
  // The mount point on which the launcher stages each run's base (/usr, /etc, /dev, ...), in its
  // own namespace (see --stage-root).
  const stageRoot = join(workDir, 'root.stage');
  if (!existsSync(stageRoot)) mkdirSync(stageRoot, { mode: 0o555 });
  // Writable roots are overlaid in each run's namespace so that missing protected names never
  // become files in the user's tree; a root that cannot be is refused (fail closed) unless the
  // policy accepts host placeholders by name.
  const overlay = platform === 'linux' && launcherPins ? prepareProtectedOverlay(policy, workDir) : undefined;
  const unoverlaid =
    platform !== 'linux'
      ? []
      : (overlay?.unoverlaid ??
        writableDirs(policy).map((root) => ({
          root,
          why: launcher ? 'the launcher cannot make a private mount namespace on this host' : 'the compiled launcher is not in use (socat fallback)',
        })));
  try {
    if (refuseUnoverlaid(policy, unoverlaid)) degraded.push('host-placeholders');
  } catch (err) {
    if (ownsWorkDir) {
      removeWorkDir();
      onProcessExit(removeWorkDir, false);
    }
    throw err;
  }
  const runDirs = createRunDirPool(workDir);
  const sourceEnv = options.env ?? process.env;
  const createProxy = options.createProxy ?? defaultProxyFactory;
  const running = new Set<SandboxProcess>();
  // Re-lists only directories that changed since the last spawn (see createNestedGitScanner).
  const nestedGitScanner = createNestedGitScanner();
  // Removes placeholders only where no live run holds their root; without the launcher, never.
  const keeper = launcher ? createPlaceholderKeeper({ launcher: launcher.path, lingerMs }) : undefined;
  // Started at the first run that needs the launcher (see startSpawnServer); ended by close().
  let server: SpawnServer | undefined;
  let useServer = options.spawnServer !== false;
  let closed = false;

  const audit = (principal: Principal, action: string, target: string, decision: 'allow' | 'deny', extra: { code?: string; rule?: string; details?: Record<string, unknown> } = {}): void => {
    options.audit?.record({ principal, action, target, decision, ...extra });
  };

  /** Everything a run owns before its process starts: identity, private directory, proxy listener. */
  interface RunSlot {
    readonly runId: string;
    readonly principal: Principal;
    readonly violations: SandboxViolation[];
    readonly runDir?: string;
    readonly socketPath?: string;
    readonly proxyPort?: number;
    release(): Promise<void>;
  }
  const background = new Set<Promise<void>>();
  const track = (p: Promise<void>): void => {
    const q = p.catch(() => undefined).finally(() => background.delete(q));
    background.add(q);
  };

  async function prepareSlot(): Promise<RunSlot> {
    const runId = randomUUID();
    const principal = createPrincipal('process', runId);
    const violations: SandboxViolation[] = [];
    // A private directory only when something lives there: on Linux the proxy's socket (a pooled
    // directory, see createRunDirPool), on macOS the run's HOME and TMPDIR (made for it alone).
    const pooled = platform === 'linux';
    const runDir = !(brokered || platform === 'darwin') ? undefined : pooled ? runDirs.take() : join(workDir, runId.slice(0, 8));
    if (runDir !== undefined && !pooled) mkdirSync(runDir, { mode: 0o700 });
    const dropDir = (): void => {
      if (runDir === undefined) return;
      if (pooled) runDirs.give(runDir);
      else rmSync(runDir, { recursive: true, force: true });
    };
    let proxy: EgressProxyHandle | undefined;
    let proxyPort: number | undefined;
    let socketPath: string | undefined;
    try {
      // The run's own egress listener: attribution is by which socket the bytes arrive on.
      if (brokered) {
        const runAudit = createRunAudit(options.audit, violations);
        const guard = runGuard;
        const connectAs = caps.has('http') || floored ? 'http' : 'tcp';
        const runEgress = grantedEgress(runPolicy!, caps);
        if (runDir !== undefined && platform === 'linux') {
          socketPath = join(runDir, 'egress.sock');
          const udpRelay = udp ? { udp: { announce: { host: '127.0.0.1' as const, port: policy.network.proxyPort } } } : {};
          proxy = await createProxy({ policy: runEgress, guard, audit: runAudit, principal, listen: { path: socketPath }, connectAs, ...udpRelay });
          proxyPort = policy.network.proxyPort;
        } else {
          proxy = await createProxy({ policy: runEgress, guard, audit: runAudit, principal, listen: { host: '127.0.0.1', port: 0 }, connectAs });
          proxyPort = 'port' in proxy.address ? proxy.address.port : undefined;
        }
      }
    } catch (err) {
      dropDir();
      throw err;
    }
    const p = proxy;
    return {
      runId,
      principal,
      violations,
      ...(runDir !== undefined ? { runDir } : {}),
      ...(socketPath !== undefined ? { socketPath } : {}),
      ...(proxyPort !== undefined ? { proxyPort } : {}),
      async release() {
        try {
          await p?.close();
        } finally {
          dropDir();
        }
      },
    };
  }

  // With http/tcp, the next run's listener is started once the current run has been launched,
  // while it executes, so proxy start-up is off the spawn path. Each slot still has its own
  // runId and socket.
  let spare: Promise<RunSlot> | undefined;
  const takeSlot = async (): Promise<RunSlot> => {
    const ready = spare;
    spare = undefined;
    const slot = ready ? await ready.catch(() => undefined) : undefined;
    return slot ?? prepareSlot();
  };
  const prepareSpare = (): void => {
    if (!brokered || closed || spare) return;
    spare = prepareSlot();
    spare.catch(() => undefined);
  };

  const linux = createLinuxPlanner({
    policy: planPolicy,
    probe,
    degraded,
    launcher,
    fallback,
    fallbackBash,
    empty,
    stageRoot,
    keeper,
    nestedGitScanner,
    home: sourceEnv.HOME,
    seccompFilter,
    udp,
    bridgeOutside,
    launcherNetwork,
    launcherPins,
    // Missing protected names exist only in each run's overlay, never in the user's tree.
    overlay,
  });

  /**
   * The next run, prepared once a run has ended (Linux, through the spawn server): started as far
   * as bwrap's command, with its own slot, cgroups and placeholders' hold, waiting for a command.
   */
  interface PreparedRun {
    readonly slot: RunSlot;
    readonly cgroups: RunCgroups | undefined;
    readonly wants: Wants;
    readonly factsKey: string;
    readonly placeholders: LinuxPlan['placeholders'];
    readonly launched: PreparedLaunch;
    /** Undoes its registration to be ended at process exit (see the keeper's `endAtExit`). */
    readonly forgetAtExit: () => void;
  }
  const prestart = options.prestart !== false && platform === 'linux' && launcher !== undefined && lingerMs > 0;
  /** Ends a prepared run that will not take a command, and gives back what it held (its slot too, unless a run goes on with it). */
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
    const s = server;
    lastEnd = performance.now();
    if (!prestart || !following || closed || !useServer || !s?.alive || ahead.holding) return prepareSpare();
    const prepare = async (): Promise<PreparedRun | undefined> => {
      const slot = await takeSlot().catch(() => undefined);
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

  async function spawnRun(argv: readonly string[], opts: SpawnOptions = {}): Promise<SandboxProcess> {
    if (closed) throw new TrustError('SANDBOX_CLOSED', 'this sandbox was closed', { hint: 'create a new sandbox' });
    // Every caller-supplied value is checked once, here, before anything is planned; from now on
    // only the validated, frozen copy is used (the caller's objects are not read again).
    const checked = evaluateSpawnRequest(argv, opts);
    if (!checked.allow) {
      // Recorded like every refusal, under a principal of its own (no run exists); the target
      // names the program only when argv itself passed.
      const target = checked.code === 'SANDBOX_ARGV_INVALID' ? '(invalid argv)' : String((argv as readonly unknown[])[0]);
      audit(createPrincipal('process', randomUUID()), 'sandbox.spawn', target, 'deny', { code: checked.code, details: { policy: policyHash, reason: checked.reason } });
      throw new TrustError(checked.code, checked.reason, { ...(checked.hint ? { hint: checked.hint } : {}), decision: checked });
    }
    const request = checked.request;
    argv = request.argv;
    if (opts.stdin !== undefined && !caps.has('stdin')) {
      throw new TrustError('SANDBOX_CAPABILITY_MISSING', 'stdin data was passed but the policy does not grant "stdin"', { hint: 'add "stdin" to the capabilities' });
    }
    // The prepared run comes with its slot; abandoned (below) unless this run is what it prepared.
    let unused = await ahead.take();
    const slot = unused?.slot ?? (await takeSlot());
    const { runId, principal, violations, runDir, proxyPort } = slot;
    const started = Date.now();
    following = lastEnd !== undefined && performance.now() - lastEnd < lingerMs;
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

      const timeoutMs = Math.min(request.timeoutMs ?? Infinity, policy.limits.timeMs ?? DEFAULT_TIME_MS);
      const maxOutput = Math.min(request.maxOutputBytes ?? Infinity, policy.limits.outputBytes ?? DEFAULT_OUTPUT_BYTES);
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
      // With the launcher on the host side, it supervises bwrap on the lifeline (see below).
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
          const same = known.key === prepared.factsKey && w.stdin === wants.stdin && w.stdout === wants.stdout && w.stderr === wants.stderr;
          unused = undefined;
          if (same && (await prepared.launched.start({ argv, env, cwd }))) {
            child = prepared.launched;
            cgroups = prepared.cgroups;
            placeholders = prepared.placeholders;
            keeper?.endRun(prepared.placeholders); // this run's own beginRun covers them now
            prepared.forgetAtExit();
          } else {
            await abandon(prepared, false);
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
        const plan: DarwinPlan = planSeatbelt(policy, argv, { env, home, tmpdir: tmp, ...(proxyPort !== undefined ? { proxyPort } : {}) });
        file = plan.file;
        args = plan.args;
      }

      audit(principal, 'sandbox.spawn', argv[0]!, 'allow', {
        details: { runId, policy: policyHash, platform, capabilities: caps.toStrings(), degraded, cwd, timeoutMs, maxOutput, placeholders: placeholders.length, prepared: child !== undefined },
      });
      if (degraded.length > 0) {
        audit(principal, 'sandbox.degraded', argv[0]!, 'allow', { rule: 'allowDegraded', details: { runId, degraded } });
      }

      const fd4 = argsFd && seccompFilter ? seccompFilter : undefined;
      if (!child && lifeline && useServer && !server?.alive) {
        server = startSpawnServer(launcher!.path);
        if (!server.usable) {
          server.close();
          useServer = false;
        }
      }
      // The spawn server takes the options as words (see launcher-wire.ts); bwrap itself, its file.
      const fd3 = argsFd && !(lifeline && useServer) ? encodeBwrapArgs(argsFd) : undefined;
      if (child) {
        // Started already: the prepared run took the command.
      } else if (lifeline && useServer) {
        // The launcher's spawn server forks the run, and holds its lifeline for this process.
        child = await server!.launch({ args, ...(argsFd ? { options: argsFd } : {}), ...(fd4 ? { fd4 } : {}), ...wants });
      } else {
        const forked = spawnChild(file, args as string[], {
          stdio: [wants.stdin ? 'pipe' : 'ignore', wants.stdout ? 'pipe' : 'ignore', wants.stderr ? 'pipe' : 'ignore', fd3 ? 'pipe' : 'ignore', fd4 ? 'pipe' : 'ignore', lifeline ? 'pipe' : 'ignore'],
          detached: true,
          env: platform === 'darwin' ? env : { PATH: '/usr/bin:/bin' },
        });
        if (lifeline) {
          // This process holds the lifeline itself: never written, only kept open while it lives.
          // Read (and drained) so that its end is seen and the child's 'close' can fire.
          const fd5 = (forked.stdio as unknown as ReadonlyArray<(NodeJS.ReadableStream & { unref?: () => void }) | null>)[LIFELINE_FD];
          fd5?.on('error', () => undefined);
          fd5?.resume();
          fd5?.unref?.();
        }
        child = fromChildProcess(forked, [fd3, fd4]);
      }
      prepareSpare();
      if (opts.stdin !== undefined && child.stdin) {
        child.stdin.on('error', () => undefined);
        if (typeof opts.stdin === 'string' || opts.stdin instanceof Uint8Array) child.stdin.end(opts.stdin);
        else opts.stdin.pipe(child.stdin);
      }
      const out = capOutput(child.stdout, maxOutput);
      const err = capOutput(child.stderr, maxOutput);

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
        if (!lifeline) return forceKill();
        // The supervising launcher SIGKILLs everything below it on SIGTERM, then removes the
        // run's placeholders (which a SIGKILL of the launcher itself would leave behind). Should
        // it not be gone in a few seconds, the whole group is killed anyway.
        child.kill('SIGTERM');
        forceTimer ??= setTimeout(forceKill, FORCE_KILL_AFTER_MS);
        forceTimer.unref();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killTree();
      }, timeoutMs);
      const onAbort = (): void => killTree();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.signal?.aborted) killTree();

      const exit = child.closed.then(
        async ({ code, signal }) => {
          done = true;
          prepareNext(wants);
          clearTimeout(timer);
          clearTimeout(forceTimer);
          opts.signal?.removeEventListener('abort', onAbort);
          running.delete(handle);
          await cleanup();
          const result: SandboxExit = Object.freeze({
            code,
            signal,
            timedOut,
            truncated: out.truncated() || err.truncated(),
            truncatedStreams: { stdout: out.truncated(), stderr: err.truncated() },
            violations: Object.freeze([...violations]),
            runId,
            durationMs: Date.now() - started,
          });
          audit(principal, 'sandbox.exit', argv[0]!, 'allow', {
            ...(timedOut ? { code: 'SANDBOX_TIMEOUT' } : {}),
            details: { runId, code, signal, timedOut, truncated: result.truncated, violations: violations.length, durationMs: result.durationMs },
          });
          releaseSlot();
          return result;
        },
        async (e: Error) => {
          done = true;
          clearTimeout(timer);
          clearTimeout(forceTimer);
          opts.signal?.removeEventListener('abort', onAbort);
          running.delete(handle);
          await cleanup();
          releaseSlot();
          throw new TrustError('SANDBOX_UNAVAILABLE', `could not start ${file}: ${e.message}`, { cause: e, hint: 'check that bubblewrap is installed' });
        },
      );
      const handle: SandboxProcess = Object.freeze({
        runId,
        pid: child.pid,
        stdout: out.stream,
        stderr: err.stream,
        kill: killTree,
        exit,
      });
      running.add(handle);
      return handle;
    } catch (err) {
      // Every refusal before the process starts is recorded, with its code.
      audit(principal, 'sandbox.spawn', argv[0]!, 'deny', { code: isTrustError(err) ? err.code : 'SANDBOX_SPAWN_FAILED', details: { runId } });
      if (unused) await abandon(unused, false);
      await cleanup();
      releaseSlot();
      throw err;
    }
  }

  return Object.freeze({
    policy,
    probe,
    degraded: Object.freeze(degraded),
    policyHash,
    spawn: spawnRun,
    async close(): Promise<void> {
      closed = true;
      const waits = [...running].map((r) => {
        r.kill();
        return r.exit.catch(() => undefined);
      });
      await Promise.all(waits);
      const prepared = await ahead.take();
      if (prepared) await abandon(prepared, true);
      const last = spare;
      spare = undefined;
      if (last) await last.then((s) => s.release()).catch(() => undefined);
      await Promise.all([...background]);
      server?.close();
      await keeper?.close();
      if (ownsWorkDir) {
        removeWorkDir();
        onProcessExit(removeWorkDir, false);
      }
    },
  });
}
