import { createHash } from 'node:crypto';
import type { SandboxPolicy } from './policy.js';

/**
 * The SHA-256 of a policy's canonical JSON (capabilities as strings, limits sorted by name),
 * stamped on every `sandbox.spawn` audit event: the same policy, the same hash.
 *
 * @example
 * hashSandboxPolicy(parseSandboxPolicy({ v: 1, capabilities: ['stdout'] })); // '3f0c...'
 */
export function hashSandboxPolicy(policy: SandboxPolicy): string {
  return createHash('sha256')
    .update(
      JSON.stringify({
        v: policy.v,
        capabilities: policy.capabilities.toStrings(),
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
}
