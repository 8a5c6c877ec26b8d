// createSandbox: wires the parts of a sandbox together. Each is a file of its own: the validated
// configuration (sandbox-config.ts, sandbox-options.ts), the policy hash (policy-hash.ts), the
// work directory (work-dir.ts), run slots (run-slots.ts), runs prepared ahead (prepared-runs.ts),
// and spawning (spawn-run.ts, run-start.ts, run-handle.ts).
import type { Principal } from '@trust/core';
import { createLinuxPlanner } from './linux-run.js';
import { createNestedGitScanner } from './nested-git.js';
import { createPlaceholderKeeper } from './placeholders.js';
import type { SandboxPolicy, SandboxPolicyInput } from './policy.js';
import { createPreparedRuns } from './prepared-runs.js';
import { createRunServer } from './run-server.js';
import { createRunSlots } from './run-slots.js';
import { resolveSandboxConfig } from './sandbox-config.js';
import type { CreateSandboxOptions, Sandbox, SandboxProcess } from './sandbox-types.js';
import { createSpawner } from './spawn-run.js';
import { prepareWorkDir } from './work-dir.js';

export type { CreateSandboxOptions, Sandbox, SandboxExit, SandboxProcess, SpawnOptions } from './sandbox-types.js';

/**
 * Creates an independent sandbox for one policy. Probes the host once, compiles (or verifies)
 * the launcher, and fails closed: `SANDBOX_UNAVAILABLE` when bubblewrap or user namespaces are
 * missing, `SANDBOX_DEGRADED_REFUSED` when the policy would need a weaker mode it did not name,
 * `SANDBOX_POLICY_INVALID` for a bad policy or bad options.
 *
 * @example
 * const sb = await createSandbox({ v: 1, capabilities: ['fs:rw:/srv/project', 'stdout', 'stderr'] });
 * const p = await sb.spawn(['/bin/ls', '-la'], { cwd: '/srv/project' });
 * const out = await readAll(p.stdout);
 * const { code } = await p.exit;
 * await sb.close();
 */
export async function createSandbox(
  input: SandboxPolicy | SandboxPolicyInput,
  options: CreateSandboxOptions = {},
): Promise<Sandbox> {
  const config = await resolveSandboxConfig(input, options);
  const { policy, probe, degraded, policyHash, launcher, lingerMs } = config;
  const dir = prepareWorkDir(config);
  let closed = false;
  const isClosed = (): boolean => closed;
  const running = new Set<SandboxProcess>();
  // Removes placeholders only where no live run holds their root; without the launcher, never.
  const keeper = launcher ? createPlaceholderKeeper({ launcher: launcher.path, lingerMs }) : undefined;
  // Started at the first run that needs the launcher; ended by close().
  const server = createRunServer(launcher?.path, config.options.spawnServer !== false);
  const background = new Set<Promise<void>>();
  const track = (p: Promise<void>): void => {
    const q = p.catch(() => undefined).finally(() => background.delete(q));
    background.add(q);
  };
  const audit = (
    principal: Principal,
    action: string,
    target: string,
    decision: 'allow' | 'deny',
    extra: { code?: string; rule?: string; details?: Record<string, unknown> } = {},
  ): void => {
    config.options.audit?.record({ principal, action, target, decision, ...extra });
  };
  const slots = createRunSlots(config, dir.workDir, isClosed);
  const linux = createLinuxPlanner({
    policy: config.planPolicy,
    probe,
    degraded,
    launcher,
    fallback: config.fallback,
    fallbackBash: config.fallbackBash,
    empty: dir.empty,
    stageRoot: dir.stageRoot,
    keeper,
    // Re-lists only directories that changed since the last spawn (see createNestedGitScanner).
    nestedGitScanner: createNestedGitScanner(),
    home: config.sourceEnv.HOME,
    seccompFilter: config.seccompFilter,
    udp: config.udp,
    bridgeOutside: config.bridgeOutside,
    launcherNetwork: config.launcherNetwork,
    launcherPins: config.launcherPins,
    // Missing protected names exist only in each run's overlay, never in the user's tree.
    overlay: dir.overlay,
  });
  const prepared = createPreparedRuns({ config, slots, server, linux, keeper, isClosed });
  const spawn = createSpawner({
    config,
    workDir: dir.workDir,
    slots,
    prepared,
    server,
    linux,
    keeper,
    audit,
    track,
    running,
    isClosed,
  });

  return Object.freeze({
    policy,
    probe,
    degraded: Object.freeze(degraded),
    policyHash,
    spawn,
    async close(): Promise<void> {
      closed = true;
      const waits = [...running].map((r) => {
        r.kill();
        return r.exit.catch(() => undefined);
      });
      await Promise.all(waits);
      const ahead = await prepared.take();
      if (ahead) await prepared.abandon(ahead, true);
      await slots.releaseSpare();
      await Promise.all([...background]);
      server.close();
      await keeper?.close();
      dir.release();
    },
  });
}
