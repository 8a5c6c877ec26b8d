// Starts the built `trust studio` binary on its demo workspace in a temporary TRUST_HOME: the
// real control server, real plugin inspection, real sandbox-run records and the real edge audit log.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CliStudio {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly workspace: string;
  stop(): Promise<number | null>;
}

export async function startCliStudio(): Promise<CliStudio> {
  // The workspace link of the CLI package (its package.json is not exported).
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@trust', 'cli', 'bin', 'trust.cjs');
  const home = mkdtempSync(join(tmpdir(), 'studio-cli-'));
  const child: ChildProcess = spawn(process.execPath, [bin, 'studio', '--json'], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TRUST_HOME: join(home, '.trust') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const doc = await new Promise<{ result: { url: string; port: number; workspace: string } }>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n'))
        resolve(JSON.parse(out.split('\n')[0]!) as { result: { url: string; port: number; workspace: string } });
    });
    child.on('exit', (c) => reject(new Error(`trust studio exited ${c}: ${err}`)));
  });
  const [base, token] = doc.result.url.split('/#token=') as [string, string];
  return {
    url: base,
    port: doc.result.port,
    token,
    workspace: doc.result.workspace,
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', (c) => {
          rmSync(home, { recursive: true, force: true });
          resolve(c);
        });
        child.kill('SIGINT');
      }),
  };
}
