import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What the model peer saw of one request (headers only, and whether the body contained the key). */
export interface PeerRecord {
  readonly path: string;
  readonly authorization: string | null;
  readonly xApiKey: string | null;
  readonly anthropicVersion: string | null;
  readonly bodyHasKey: boolean;
  readonly model: string | null;
}

/** A wire-format model server (fixtures/model-peer.mjs) in a child process on 127.0.0.1. */
export interface ModelPeer {
  readonly base: string;
  readonly port: number;
  seen(): Promise<PeerRecord[]>;
  stop(): Promise<void>;
}

/** Starts the peer; it accepts only `key` (as `authorization: Bearer` or `x-api-key`). */
export function startModelPeer(key: string): Promise<ModelPeer> {
  const child: ChildProcess = spawn(
    process.execPath,
    [fileURLToPath(new URL('./fixtures/model-peer.mjs', import.meta.url))],
    {
      env: { PATH: process.env.PATH ?? '', PEER_KEY: key },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`model peer exited with ${code}`)));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      const m = /PORT (\d+)/.exec(d);
      if (!m) return;
      const port = Number(m[1]);
      const base = `http://127.0.0.1:${port}`;
      resolve({
        base,
        port,
        seen: async () => (await (await fetch(`${base}/seen`)).json()) as PeerRecord[],
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
