import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package bin, as a user runs it (it loads the built dist/index.js). */
export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'trust.cjs');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as one JSON document (throws when it is not). */
  json(): unknown;
}

/** A temporary HOME and TRUST_HOME, removed by `cleanup()`. */
export function createTempHome() {
  const home = mkdtempSync(join(tmpdir(), 'trust-cli-test-'));
  return { home, trustHome: join(home, '.trust'), cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** Runs `node bin/trust.cjs …args` with a clean environment in `home`. */
export function runCli(
  args: readonly string[],
  options: { home: string; cwd?: string; env?: Record<string, string>; input?: string },
): Promise<CliRun> {
  return runCliAt(BIN, args, options);
}

/** Like `runCli`, with another copy of the bin (e.g. one laid out as an npm install). */
export function runCliAt(
  bin: string,
  args: readonly string[],
  options: { home: string; cwd?: string; env?: Record<string, string>; input?: string },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? options.home,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: options.home,
        TRUST_HOME: join(options.home, '.trust'),
        ...options.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout,
        stderr,
        json: () => JSON.parse(stdout),
      }),
    );
    child.stdin.end(options.input ?? '');
  });
}
