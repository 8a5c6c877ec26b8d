import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const fixture = (name: 'tiny' | 'mini' | 'probe' | 'fetcher'): Uint8Array =>
  new Uint8Array(readFileSync(join(pkgDir, '.fixtures', `${name}.wasm`)));

/** A fresh temp dir, removed by the returned cleanup. */
export function tempDir(prefix = 'wasm-host-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a package directory: package.toml plus files. */
export function writePackage(dir: string, toml: string, files: Record<string, Uint8Array | string>): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.toml'), toml);
  for (const [p, b] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), b);
  }
  return dir;
}

export function manifestToml(capabilities: string[], extra = ''): string {
  return (
    '[package]\nname = "tiny"\nversion = "1.0.0"\n\n' +
    `[wasm]\ncomponent = "tiny.wasm"\ncapabilities = ${JSON.stringify(capabilities)}\n${extra}`
  );
}

/** A policy that denies every destination (kept local so tests do not depend on policy helpers). */
export const denyAllPolicy = Object.freeze({
  name: 'deny-all',
  authorizeHttp: () => ({
    allow: false as const,
    code: 'EGRESS_POLICY_DENIED' as const,
    reason: 'deny-all test policy',
  }),
});

/** Starts test/udp-peer.mjs; resolves with its port and the datagrams it has received so far. */
export async function startUdpPeer(): Promise<{ port: number; received: () => string[]; close: () => Promise<void> }> {
  const { fork } = await import('node:child_process');
  const child = fork(join(pkgDir, 'test', 'udp-peer.mjs'), [], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const got: string[] = [];
  let buf = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = JSON.parse(buf.slice(0, i)) as { port?: number; data?: string };
        buf = buf.slice(i + 1);
        if (line.port !== undefined) resolve(line.port);
        else got.push(line.data!);
      }
    });
  });
  return {
    port,
    received: () => [...got],
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
