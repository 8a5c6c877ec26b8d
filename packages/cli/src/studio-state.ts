import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './cli-error.js';

/** Where a running `trust studio` records its port (removed when it stops). */
export function studioStateFile(workspace: string): string {
  return join(workspace, '.studio.json');
}

/** The address and token of the studio running on `workspace`, or STUDIO_NOT_RUNNING. */
export function readStudioState(workspace: string): { port: number; token: string } {
  const file = studioStateFile(workspace);
  const tokenFile = join(workspace, '.control-token');
  if (!existsSync(file) || !existsSync(tokenFile)) {
    throw new CliError('STUDIO_NOT_RUNNING', `no trust studio is running on ${workspace}`, { hint: 'start it with `trust studio` (approvals are answered through its control server)' });
  }
  const state = JSON.parse(readFileSync(file, 'utf8')) as { port?: unknown };
  if (typeof state.port !== 'number') throw new CliError('STUDIO_NOT_RUNNING', `${file} is damaged`, { hint: 'restart `trust studio`' });
  return { port: state.port, token: readFileSync(tokenFile, 'utf8').trim() };
}

/** Calls the control API of a running studio with the owner's token. */
export async function callStudio(state: { port: number; token: string }, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${state.port}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${state.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (cause) {
    throw new CliError('STUDIO_NOT_RUNNING', `the studio on port ${state.port} does not answer`, { hint: 'start it again with `trust studio`', cause });
  }
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const err = (json.error ?? {}) as { code?: string; message?: string; hint?: string };
    throw new CliError(err.code ?? 'CONTROL_ERROR', err.message ?? `control API answered ${res.status}`, err.hint ? { hint: err.hint } : {});
  }
  return json;
}
