import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onProcessExit } from './on-exit.js';
import { prepareProtectedOverlay, refuseUnoverlaid, writableDirs, type ProtectedOverlay } from './protected-overlay.js';
import type { SandboxConfig } from './sandbox-config.js';

/** A sandbox's host work directory and what lives there for every run. */
export interface SandboxWorkDir {
  readonly workDir: string;
  /** Removes it (only when the sandbox made it; see `release`). */
  release(): void;
  /** Empty read-only mount sources for protected and hidden paths. */
  readonly empty: { readonly file: string; readonly dir: string };
  /**
   * The mount point on which the launcher stages each run's base (/usr, /etc, /dev, ...), in its own namespace (see
   * --stage-root).
   */
  readonly stageRoot: string;
  /** The roots the launcher overlays (see `prepareProtectedOverlay`); undefined without its private namespace. */
  readonly overlay: ProtectedOverlay | undefined;
}

/**
 * Makes (or takes) the work directory, its empty mount sources and stage root, and decides the
 * writable roots' overlays: a root that cannot be overlaid is refused (fail closed) unless the
 * policy accepts host placeholders by name (then `host-placeholders` joins `config.degraded`).
 * A work directory the sandbox made is removed by `release()`, or when the process exits without it.
 *
 * @example
 * const dir = prepareWorkDir(config); // { workDir: '/tmp/trust-sandbox-x', empty, stageRoot, overlay }
 */
export function prepareWorkDir(config: SandboxConfig): SandboxWorkDir {
  const { options, platform, policy, launcher, launcherPins } = config;
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'trust-sandbox-'));
  const ownsWorkDir = options.workDir === undefined;
  // Removed by close(), or when the process exits without it.
  const removeWorkDir = (): void => rmSync(workDir, { recursive: true, force: true });
  if (ownsWorkDir) onProcessExit(removeWorkDir, true);
  const release = (): void => {
    if (!ownsWorkDir) return;
    removeWorkDir();
    onProcessExit(removeWorkDir, false);
  };
  const empty = { file: join(workDir, 'empty'), dir: join(workDir, 'empty.d') };
  if (!existsSync(empty.file)) writeFileSync(empty.file, '', { mode: 0o444 });
  if (!existsSync(empty.dir)) mkdirSync(empty.dir, { mode: 0o555 });
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
          why: launcher
            ? 'the launcher cannot make a private mount namespace on this host'
            : 'the compiled launcher is not in use (socat fallback)',
        })));
  try {
    if (refuseUnoverlaid(policy, unoverlaid)) config.degraded.push('host-placeholders');
  } catch (err) {
    release();
    throw err;
  }
  return { workDir, release, empty, stageRoot, overlay };
}
