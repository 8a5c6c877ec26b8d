import { TrustError } from '@trust/core';
import type { SandboxPolicy } from './policy.js';

/** How a sandbox's Linux runs are made, as far as AF_UNIX is concerned. */
export interface UnixSocketMode {
  /** The launcher pins and overlays in a private namespace of its own (see `prepareProtectedOverlay`). */
  readonly launcherPins: boolean;
  /** The run shares the host's network namespace (degraded `shared-network`): its abstract unix sockets too. */
  readonly sharedNetwork: boolean;
  /**
   * The egress bridge is socat inside the sandbox (no launcher): it needs AF_UNIX, and nothing refuses it to the
   * command after it.
   */
  readonly socatBridge: boolean;
}

/**
 * Enforces one rule in every mode: a run creates AF_UNIX sockets only when the policy names
 * `unixSockets`, and then reaches only those. Where a mode cannot hold it, the sandbox is refused
 * with `SANDBOX_UNIX_SOCKETS_UNENFORCEABLE` (saying why and how to fix it) unless the policy
 * accepts `open-unix-sockets` by name; returns `true` then (the caller records the degraded mode).
 * Modes that hold it: the seccomp program refuses socket(AF_UNIX) without `unixSockets` (the
 * launcher refuses it to the command once a bridge inside is up, `--block-unix`); with them, the
 * launcher's overlays hide every unnamed socket inode in visible roots, and the run's own network
 * namespace hides the host's abstract sockets.
 *
 * @example
 * if (decideUnixSockets(policy, { launcherPins, sharedNetwork, socatBridge })) degraded.push('open-unix-sockets');
 */
export function decideUnixSockets(policy: SandboxPolicy, mode: UnixSocketMode): boolean {
  const named = policy.unixSockets.length > 0;
  const why = named
    ? !mode.launcherPins
      ? "only the launcher's private mount namespace can hide the unnamed sockets in visible " +
        'directories, and it is not in use here (socat fallback, or no such namespace on this host)'
      : mode.sharedNetwork
        ? "the run shares the host's network namespace, whose abstract unix sockets (dbus, X11, ...) it could reach"
        : undefined
    : mode.socatBridge
      ? 'the socat fallback bridge runs inside the sandbox and needs AF_UNIX, and ' +
        'without the launcher nothing refuses it to the command afterwards'
      : undefined;
  if (why === undefined) return false;
  if (policy.allowDegraded.includes('open-unix-sockets')) return true;
  const what = named
    ? `unixSockets limits AF_UNIX to ${policy.unixSockets.join(', ')}`
    : 'without unixSockets, AF_UNIX sockets are refused';
  throw new TrustError('SANDBOX_UNIX_SOCKETS_UNENFORCEABLE', `${what}, but this mode cannot enforce it: ${why}`, {
    hint:
      `let the sandbox launcher be built and used (a C compiler; do not force bridge: "socat"; a host with ` +
      `network and user namespaces), or accept unrestricted unix sockets with allowDegraded: ` +
      `["open-unix-sockets"]`,
  });
}
