// Everything a sandbox decides once, before any run: the validated policy and options, the
// launcher, the host probe, the degraded modes, the network tier and the seccomp program.
import { TrustError, isTrustError, type EgressPolicy } from '@trust/core';
import { decideDegraded, refuseDegraded } from './degraded.js';
import { evaluateGrantRealPaths } from './grant-paths.js';
import { findTool, hasRlimits } from './host-files.js';
import { DEFAULT_PLACEHOLDER_LINGER_MS } from './placeholders.js';
import { ensureLauncher, hideLauncher, verifyLauncher, type Launcher } from './launcher.js';
import { floorGuard, networkTierPolicy, type SandboxGuardOptions } from './network.js';
import { parseSandboxPolicy, type DegradedMode, type SandboxPolicy, type SandboxPolicyInput } from './policy.js';
import { hashSandboxPolicy } from './policy-hash.js';
import { probeSandbox, type SandboxProbe } from './probe.js';
import { parseSandboxOptions } from './sandbox-options.js';
import type { CreateSandboxOptions } from './sandbox-types.js';
import { buildSeccompFilter, seccompArchOf } from './seccomp.js';
import { evaluatePolicyValues } from './spawn-request.js';
import { decideUnixSockets } from './unix-socket-mode.js';

/** A sandbox's fixed configuration (see `resolveSandboxConfig`). */
export interface SandboxConfig {
  readonly policy: SandboxPolicy;
  readonly options: CreateSandboxOptions;
  readonly platform: 'linux' | 'darwin';
  readonly lingerMs: number;
  readonly launcher: Launcher | undefined;
  /** The policy runs are planned from: the launcher's directory hidden (see `hideLauncher`). */
  readonly planPolicy: SandboxPolicy;
  readonly fallback: { readonly socat: string | undefined; readonly prlimit: string | undefined } | undefined;
  readonly fallbackBash: string | undefined;
  readonly probe: SandboxProbe;
  /** Weaker modes in effect (each accepted by name); the work directory step may add `host-placeholders`. */
  readonly degraded: DegradedMode[];
  /** The coarse tier (network/sockets) in its own namespace through the run's proxy. */
  readonly floored: boolean;
  /** Runs get their own egress proxy (http/tcp/udp, or the floored tier). */
  readonly brokered: boolean;
  readonly udp: boolean;
  readonly launcherNetwork: boolean;
  readonly bridgeOutside: boolean;
  readonly launcherPins: boolean;
  readonly runPolicy: EgressPolicy | undefined;
  readonly runGuard: SandboxGuardOptions;
  readonly sourceEnv: Readonly<Record<string, string | undefined>>;
  readonly seccompFilter: Uint8Array | undefined;
  readonly policyHash: string;
  /** Throws unless every grant exists and names its real path (Linux); again at every spawn. */
  readonly assertGrantsReal: () => void;
}

/** Compiles (or verifies) the launcher; `error` says why there is none (the fallback is used then). */
async function resolveLauncher(
  platform: 'linux' | 'darwin',
  options: CreateSandboxOptions,
): Promise<{ launcher?: Launcher; error?: unknown }> {
  if (platform !== 'linux' || options.bridge === 'socat') return {};
  try {
    return {
      launcher: options.launcher
        ? verifyLauncher(options.launcher.path, options.launcher.sha256)
        : await ensureLauncher({
            ...(options.launcherCacheDir ? { cacheDir: options.launcherCacheDir } : {}),
            ...(options.launcherVerify ? { verify: options.launcherVerify } : {}),
          }),
    };
  } catch (err) {
    // A tampered launcher (or an unsafe cache) is never silently replaced by the fallback.
    if (
      isTrustError(err, 'SANDBOX_LAUNCHER_TAMPERED') ||
      isTrustError(err, 'SANDBOX_LAUNCHER_CACHE_UNSAFE') ||
      options.launcher
    )
      throw err;
    return { error: err };
  }
}

/** Without the launcher: refuses what only it can do (datagrams, cgroups) or what has no fallback here. */
function assertFallback(
  policy: SandboxPolicy,
  probe: SandboxProbe,
  brokered: boolean,
  fallback: SandboxConfig['fallback'],
  launcherError: unknown,
): void {
  if (policy.capabilities.has('udp')) {
    throw new TrustError(
      'SANDBOX_UNAVAILABLE',
      'the udp capability needs the sandbox launcher (its datagram bridge has no socat fallback)',
      {
        cause: launcherError,
        hint: 'install a C compiler (apt-get install gcc libc6-dev) and do not force bridge: "socat"',
      },
    );
  }
  const needBridge = brokered && !fallback?.socat;
  const needLimits = hasRlimits(policy) && !fallback?.prlimit;
  if (needBridge || needLimits) {
    throw new TrustError(
      'SANDBOX_UNAVAILABLE',
      'the sandbox launcher could not be built and the socat/prlimit fallback is missing',
      {
        cause: launcherError,
        hint: 'install a C compiler (apt-get install gcc libc6-dev), or socat and util-linux',
      },
    );
  }
  if (
    (policy.limits.pids !== undefined && probe.cgroups.pids) ||
    (policy.limits.memoryBytes !== undefined && probe.cgroups.memory)
  ) {
    // Joining a cgroup before bwrap starts needs the launcher; without it the limits are rlimits only.
    refuseDegraded(
      policy,
      policy.limits.pids !== undefined ? 'no-pids-limit' : 'no-memory-limit',
      'cgroup limits need the compiled launcher',
      'install a C compiler',
    );
  }
}

/**
 * Validates the policy and the options (once, strictly), compiles or verifies the launcher,
 * probes the host and decides, failing closed: `SANDBOX_UNAVAILABLE`, `SANDBOX_DEGRADED_REFUSED`,
 * `SANDBOX_POLICY_INVALID`, `SANDBOX_GRANT_*`, `SANDBOX_UNIX_SOCKETS_UNENFORCEABLE`.
 *
 * @example
 * const config = await resolveSandboxConfig({ v: 1, capabilities: ['stdout'] }, {});
 */
export async function resolveSandboxConfig(
  input: SandboxPolicy | SandboxPolicyInput,
  rawOptions: unknown,
): Promise<SandboxConfig> {
  const policy = parseSandboxPolicy(input);
  const values = evaluatePolicyValues(policy);
  if (!values.allow)
    throw new TrustError(values.code, values.reason, {
      ...(values.hint ? { hint: values.hint } : {}),
      decision: values,
    });
  const options = parseSandboxOptions(rawOptions);
  const lingerMs = options.placeholderLingerMs ?? DEFAULT_PLACEHOLDER_LINGER_MS;
  const platform =
    options.platform ?? (process.platform === 'darwin' ? 'darwin' : process.platform === 'linux' ? 'linux' : undefined);
  if (!platform) {
    throw new TrustError('SANDBOX_UNAVAILABLE', `no sandbox backend for ${process.platform}`, {
      hint: 'run on Linux (bubblewrap) or macOS (seatbelt)',
    });
  }
  const caps = policy.capabilities;
  const coarse = caps.egressTier() === 'coarse';
  const fine = caps.has('http') || caps.has('tcp') || caps.has('udp');
  if (fine && !options.egress) {
    throw new TrustError(
      'SANDBOX_POLICY_INVALID',
      'the http/tcp/udp capability needs an egress policy to judge destinations',
      {
        hint: 'pass createSandbox(policy, { egress: allowHosts([...]) }); without one there is no reach',
      },
    );
  }
  const { launcher, error: launcherError } = await resolveLauncher(platform, options);
  // The launcher's directory is out of every run's reach: no writable grant may lie inside it, and
  // one that contains it gets it hidden (see Launcher.hideDir), so a run cannot rewrite what the
  // host runs next.
  const planPolicy = launcher ? hideLauncher(policy, launcher.hideDir) : policy;
  const fallbackBash = launcher ? undefined : findTool(['/usr/bin/bash', '/bin/bash']);
  const fallback = launcher
    ? undefined
    : { socat: findTool(['/usr/bin/socat', '/bin/socat']), prlimit: findTool(['/usr/bin/prlimit', '/bin/prlimit']) };
  const probe =
    options.probe ??
    (await probeSandbox({
      ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
      ...(launcher ? { launcherPath: launcher.path } : {}),
    }));
  if (platform === 'linux') {
    if (!probe.bwrap)
      throw new TrustError('SANDBOX_UNAVAILABLE', 'bubblewrap is not installed', {
        hint: probe.notes.join('; ') || 'apt-get install bubblewrap',
      });
    if (!probe.userns)
      throw new TrustError('SANDBOX_UNAVAILABLE', 'bubblewrap cannot create a user namespace on this host', {
        hint: probe.notes.join('; '),
      });
  } else if (!probe.seatbelt && !options.probe) {
    throw new TrustError('SANDBOX_UNAVAILABLE', '/usr/bin/sandbox-exec is missing', {
      hint: 'seatbelt ships with macOS; it cannot be installed separately',
    });
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
  const launcherNetwork =
    platform === 'linux' && launcher !== undefined && probe.launcherNetns && !degraded.includes('shared-network');
  const bridgeOutside = brokered && launcherNetwork;
  // The launcher pins protected paths (and nested repositories) in a namespace of its own.
  const launcherPins = platform === 'linux' && launcher !== undefined && probe.pinNamespace;
  const runPolicy = floored ? (options.egress ?? networkTierPolicy()) : options.egress;
  const runGuard: SandboxGuardOptions = floored
    ? floorGuard(options.guard)
    : { mode: policy.network.guard, ...options.guard };
  const sourceEnv = options.env ?? process.env;
  const sourceHome = sourceEnv.HOME;
  // Grants must exist and name real paths; checked again at every spawn, since a run can plant a symlink.
  const assertGrantsReal = (): void => {
    if (platform !== 'linux') return;
    const d = evaluateGrantRealPaths(policy, sourceHome);
    if (!d.allow) throw new TrustError(d.code, d.reason, { hint: d.hint, decision: d });
  };
  assertGrantsReal();
  const policyHash = hashSandboxPolicy(policy);
  // One AF_UNIX rule in every mode, or a refusal (see decideUnixSockets).
  const sharedNetwork = degraded.includes('shared-network');
  if (
    platform === 'linux' &&
    decideUnixSockets(policy, { launcherPins, sharedNetwork, socatBridge: brokered && !launcher })
  )
    degraded.push('open-unix-sockets');
  const seccompArch = seccompArchOf(process.arch);
  // socket(AF_UNIX) is refused unless the policy names unixSockets; a bridge inside the sandbox
  // needs it, and the launcher there refuses it itself once the bridge is up (--block-unix).
  const allowUnix = policy.unixSockets.length > 0 || (brokered && !bridgeOutside);
  const seccompFilter =
    platform === 'linux' && !degraded.includes('no-seccomp') && seccompArch
      ? buildSeccompFilter(seccompArch, { allowNetlinkRoute: degraded.includes('shared-network'), allowUnix })
      : undefined;
  if (platform === 'linux' && !launcher) assertFallback(policy, probe, brokered, fallback, launcherError);
  return {
    policy,
    options,
    platform,
    lingerMs,
    launcher,
    planPolicy,
    fallback,
    fallbackBash,
    probe,
    degraded,
    floored,
    brokered,
    udp,
    launcherNetwork,
    bridgeOutside,
    launcherPins,
    runPolicy,
    runGuard,
    sourceEnv,
    seccompFilter,
    policyHash,
    assertGrantsReal,
  };
}
