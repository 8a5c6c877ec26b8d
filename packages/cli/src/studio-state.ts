import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './cli-error.js';

/** Where a running `trust studio` records its port and pid (removed when it stops). */
export function studioStateFile(workspace: string): string {
  return join(workspace, '.studio.json');
}

/** What `.studio.json` holds (format `v: 1`). */
export interface StudioState {
  readonly port: number;
  readonly pid: number;
}

/** How a state file is checked: is the process alive, does the port answer as this studio. Injectable for tests. */
export interface StudioLiveness {
  isAlive(pid: number): boolean;
  /** True when `http://127.0.0.1:<port>` answers the control API with this token. */
  answers(port: number, token: string): Promise<boolean>;
}

/** The real checks: signal 0 to the pid, and `GET /api/v1/agents` with the token (1.5 s). */
export const systemLiveness: StudioLiveness = {
  isAlive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      // EPERM: the pid exists but belongs to someone else (then the port check decides).
      return (e as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
  async answers(port, token) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/agents`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(1500),
      });
      await res.body?.cancel();
      return res.status === 200;
    } catch {
      return false;
    }
  },
};

function parseState(text: string): StudioState | undefined {
  try {
    const s = JSON.parse(text) as { port?: unknown; pid?: unknown };
    if (!Number.isInteger(s.port) || (s.port as number) < 1 || (s.port as number) > 65535) return undefined;
    if (!Number.isInteger(s.pid) || (s.pid as number) < 1) return undefined;
    return { port: s.port as number, pid: s.pid as number };
  } catch {
    return undefined;
  }
}

/** Removes the state file only if it still holds `text` (a new studio may have just replaced it). */
function removeIfUnchanged(file: string, text: string): void {
  try {
    if (readFileSync(file, 'utf8') === text) unlinkSync(file);
  } catch {
    /* already gone */
  }
}

/**
 * The studio running on `workspace`, believed only when its process is alive **and** its port
 * answers the control API with the workspace token. A state file left by a killed studio (dead
 * pid, or a port that no longer answers as this studio) is removed and reported as stale.
 * Throws STUDIO_NOT_RUNNING otherwise.
 *
 * @example
 * const studio = await findLiveStudio(workspace); // { port, pid, token }
 */
export async function findLiveStudio(
  workspace: string,
  liveness: StudioLiveness = systemLiveness,
): Promise<StudioState & { token: string }> {
  const file = studioStateFile(workspace);
  const tokenFile = join(workspace, '.control-token');
  const notRunning = (why: string) =>
    new CliError('STUDIO_NOT_RUNNING', `no trust studio is running on ${workspace}${why}`, {
      hint: 'start it with `trust studio` (approvals are answered through its control server)',
    });
  if (!existsSync(file) || !existsSync(tokenFile)) throw notRunning('');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw notRunning('');
  }
  const state = parseState(text);
  if (state === undefined) {
    removeIfUnchanged(file, text);
    throw notRunning(` (${file} was damaged and has been removed)`);
  }
  const token = readFileSync(tokenFile, 'utf8').trim();
  if (!liveness.isAlive(state.pid) || !(await liveness.answers(state.port, token))) {
    removeIfUnchanged(file, text);
    throw notRunning(
      ` (the studio recorded in ${file}, pid ${state.pid} on port ${state.port}, is gone; the stale file was removed)`,
    );
  }
  return { ...state, token };
}

/**
 * Refuses to start a second studio on a workspace a live one serves (STUDIO_ALREADY_RUNNING):
 * both would open the same agent files. A stale state file is removed on the way.
 *
 * @example
 * await assertNoLiveStudio(layout.root); // before the control server starts
 */
export async function assertNoLiveStudio(workspace: string, liveness: StudioLiveness = systemLiveness): Promise<void> {
  const live = await findLiveStudio(workspace, liveness).catch(() => undefined);
  if (live !== undefined) {
    throw new CliError(
      'STUDIO_ALREADY_RUNNING',
      `a trust studio (pid ${live.pid}) already serves ${workspace} on port ${live.port}`,
      { hint: `use that one, or stop it (Ctrl-C in its terminal) first` },
    );
  }
}

/**
 * Records a running studio. The file is written whole (a temporary file, then rename, mode
 * 0600), so a reader never sees half of it; a stale file is replaced.
 *
 * @example
 * writeStudioState(layout.root, { port: server.port, pid: process.pid });
 */
export function writeStudioState(workspace: string, state: StudioState): void {
  const file = studioStateFile(workspace);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ v: 1, port: state.port, pid: state.pid })}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** The address and token of the studio running on `workspace` (see {@link findLiveStudio}). */
export async function readStudioState(
  workspace: string,
  liveness: StudioLiveness = systemLiveness,
): Promise<{ port: number; token: string }> {
  const { port, token } = await findLiveStudio(workspace, liveness);
  return { port, token };
}

/** Calls the control API of a running studio with the owner's token. */
export async function callStudio(
  state: { port: number; token: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${state.port}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${state.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (cause) {
    throw new CliError('STUDIO_NOT_RUNNING', `the studio on port ${state.port} does not answer`, {
      hint: 'start it again with `trust studio`',
      cause,
    });
  }
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const err = (json.error ?? {}) as { code?: unknown; message?: string; hint?: string };
    // Loaded here, not at the top: `trust <command> --help` must not load any @trust package.
    const { isTrustErrorCode } = await import('@trust/core');
    throw new CliError(
      isTrustErrorCode(err.code) ? err.code : 'CONTROL_ERROR',
      err.message ?? `control API answered ${res.status}`,
      err.hint ? { hint: err.hint } : {},
    );
  }
  return json;
}
