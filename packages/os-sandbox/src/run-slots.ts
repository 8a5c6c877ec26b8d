import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createPrincipal, type Principal } from '@trust/core';
import {
  createRunAudit,
  defaultProxyFactory,
  grantedEgress,
  type EgressProxyHandle,
  type SandboxViolation,
} from './network.js';
import { createRunDirPool } from './run-dirs.js';
import type { SandboxConfig } from './sandbox-config.js';

/** Everything a run owns before its process starts: identity, private directory, proxy listener. */
export interface RunSlot {
  readonly runId: string;
  readonly principal: Principal;
  readonly violations: SandboxViolation[];
  readonly runDir?: string;
  readonly socketPath?: string;
  readonly proxyPort?: number;
  release(): Promise<void>;
}

/**
 * A sandbox's run slots. With http/tcp, the next run's listener is started once the current run
 * has been launched (`prepareSpare`), while it executes, so proxy start-up is off the spawn path;
 * each slot still has its own runId and socket.
 *
 * @example
 * const slots = createRunSlots(config, workDir, () => closed);
 * const slot = await slots.take(); // ... slots.prepareSpare(); ... await slot.release();
 */
export function createRunSlots(config: SandboxConfig, workDir: string, isClosed: () => boolean) {
  const { policy, options, platform, brokered, floored, udp, runGuard, runPolicy } = config;
  const caps = policy.capabilities;
  const runDirs = createRunDirPool(workDir);
  const createProxy = options.createProxy ?? defaultProxyFactory;

  async function prepareSlot(): Promise<RunSlot> {
    const runId = randomUUID();
    const principal = createPrincipal('process', runId);
    const violations: SandboxViolation[] = [];
    // A private directory only when something lives there: on Linux the proxy's socket (a pooled
    // directory, see createRunDirPool), on macOS the run's HOME and TMPDIR (made for it alone).
    const pooled = platform === 'linux';
    const runDir = !(brokered || platform === 'darwin')
      ? undefined
      : pooled
        ? runDirs.take()
        : join(workDir, runId.slice(0, 8));
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
          const udpRelay = udp
            ? { udp: { announce: { host: '127.0.0.1' as const, port: policy.network.proxyPort } } }
            : {};
          proxy = await createProxy({
            policy: runEgress,
            guard,
            audit: runAudit,
            principal,
            listen: { path: socketPath },
            connectAs,
            ...udpRelay,
          });
          proxyPort = policy.network.proxyPort;
        } else {
          proxy = await createProxy({
            policy: runEgress,
            guard,
            audit: runAudit,
            principal,
            listen: { host: '127.0.0.1', port: 0 },
            connectAs,
          });
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

  let spare: Promise<RunSlot> | undefined;
  return {
    /** The spare slot if one is ready, else a new one. */
    async take(): Promise<RunSlot> {
      const ready = spare;
      spare = undefined;
      const slot = ready ? await ready.catch(() => undefined) : undefined;
      return slot ?? prepareSlot();
    },
    /** Starts the next run's slot (brokered runs only; one at a time; never once closed). */
    prepareSpare(): void {
      if (!brokered || isClosed() || spare) return;
      spare = prepareSlot();
      spare.catch(() => undefined);
    },
    /** At close(): releases the spare slot, if any. */
    async releaseSpare(): Promise<void> {
      const last = spare;
      spare = undefined;
      if (last) await last.then((s) => s.release()).catch(() => undefined);
    },
  };
}

/** The run slots of one sandbox (see `createRunSlots`). */
export type RunSlots = ReturnType<typeof createRunSlots>;
