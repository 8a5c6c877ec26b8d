import { TrustError, notImplemented } from '@trust/core';
import type { DegradedMode, SandboxPolicy } from './policy.js';
import type { SandboxProbe } from './probe.js';
import { seccompArchOf } from './seccomp.js';

/** Throws `SANDBOX_DEGRADED_REFUSED` unless the policy names `mode` in `allowDegraded`. */
export function refuseDegraded(policy: SandboxPolicy, mode: DegradedMode, why: string, hint: string): void {
  if (!policy.allowDegraded.includes(mode)) {
    throw new TrustError('SANDBOX_DEGRADED_REFUSED', `${why}; refusing to run in the weaker mode "${mode}"`, {
      hint: `${hint}, or accept it with allowDegraded: ["${mode}"]`,
    });
  }
}

/** Decides which degraded modes a policy needs on this host; throws for one not accepted. */
export function decideDegraded(policy: SandboxPolicy, probe: SandboxProbe): DegradedMode[] {
  const out: DegradedMode[] = [];
  const caps = policy.capabilities;
  const need = (mode: DegradedMode, cond: boolean, why: string, hint: string): void => {
    if (!cond) return;
    refuseDegraded(policy, mode, why, hint);
    out.push(mode);
  };
  if (caps.has('udp') && probe.platform === 'darwin')
    throw notImplemented('the udp capability on macOS (seatbelt has no datagram bridge yet)');
  // The network/sockets tier runs in its own namespace through the run's proxy (any public host,
  // strict address floor); only a host without network namespaces needs the shared network.
  need(
    'shared-network',
    !probe.netns,
    caps.egressTier() === 'coarse'
      ? 'this host cannot create a network namespace, so the network/sockets ' +
          'capability would use the host network without an address floor'
      : 'this host cannot create a network namespace',
    'allow network namespaces for bubblewrap',
  );
  need('no-proc', !probe.proc, 'a private /proc cannot be mounted here', 'run outside a restricted container');
  need(
    'no-userns-lock',
    !probe.disableUserns,
    `bubblewrap ${probe.bwrap?.version ?? '?'} cannot disable nested user namespaces`,
    'install bubblewrap 0.8 or newer',
  );
  need(
    'no-seccomp',
    probe.platform === 'linux' && (!probe.seccomp || !seccompArchOf(process.arch)),
    `no seccomp filter can be installed here (kernel support: ${probe.seccomp}, architecture ${process.arch})`,
    'run on x64 or arm64 Linux with seccomp enabled',
  );
  need(
    'no-pids-limit',
    policy.limits.pids !== undefined && !probe.cgroups.pids,
    'a process limit was asked for but no writable pids cgroup exists (RLIMIT_NPROC does not bind uid 0)',
    'delegate a cgroup (systemd-run --user --scope -p Delegate=yes)',
  );
  need('no-memory-limit', false, '', '');
  return [...new Set(out)];
}
