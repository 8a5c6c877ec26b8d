import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PeerCommand, PeerMessage, PeerRequest, PeerRoute, PeerStartOptions, PeerStats } from './peer-protocol.js';

/** A running loopback peer in a child process. */
export interface Peer {
  /** `127.0.0.1` or `::1`. */
  readonly host: string;
  /** Port of the HTTP (and WebSocket echo) listener. */
  readonly httpPort: number;
  /** Port of the raw TCP echo listener. */
  readonly tcpPort: number;
  /** Port of the UDP echo listener. */
  readonly udpPort: number;
  /** `http://127.0.0.1:<httpPort>` (brackets for `::1`). */
  readonly origin: string;
  /** Child process id. */
  readonly pid: number;
  /** Adds or replaces the route for an exact pathname. */
  route(path: string, route: PeerRoute): Promise<void>;
  /** Every HTTP request and WebSocket handshake received so far, in order. */
  requests(): Promise<readonly PeerRequest[]>;
  /** Forgets the recorded requests. */
  clear(): Promise<void>;
  /** Connection counters. */
  stats(): Promise<PeerStats>;
  /** Kills the child and waits for it to exit. Safe to call twice. */
  close(): Promise<void>;
}

/** A command without its id (distributes over the union). */
type PeerCommandBody = PeerCommand extends infer C ? (C extends PeerCommand ? Omit<C, 'id'> : never) : never;

export interface StartPeerOptions extends PeerStartOptions {
  /** How long to wait for the child to report ready (default 10 000 ms). */
  readonly startTimeoutMs?: number;
}

function peerScript(): string {
  // Built layout: dist/index.js next to dist/peer-process.js. Source layout (tests of this
  // package run from src): fall back to the built script.
  const here = new URL('./peer-process.js', import.meta.url);
  const path = fileURLToPath(here);
  if (existsSync(path)) return path;
  const built = fileURLToPath(new URL('../dist/peer-process.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(
    '@trust/testing: peer-process.js not found; build the package first (pnpm turbo run build --filter=@trust/testing)',
  );
}

/**
 * Starts a loopback HTTP + TCP + WebSocket peer in a child process and resolves once it listens.
 *
 * @example
 * const peer = await startPeer({ routes: { '/hello': { kind: 'text', body: 'hi' } } });
 * const res = await fetch(`${peer.origin}/hello`); // "hi"
 * await peer.close();
 */
export async function startPeer(options: StartPeerOptions = {}): Promise<Peer> {
  const { startTimeoutMs = 10_000, ...start } = options;
  const child: ChildProcess = fork(peerScript(), [JSON.stringify(start)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'json',
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  exitPromise.then(() => {
    for (const p of pending.values()) p.reject(new Error('peer exited'));
    pending.clear();
  });

  const ready = await new Promise<Extract<PeerMessage, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`peer did not start within ${startTimeoutMs} ms`));
    }, startTimeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`peer exited during start (code ${code})`));
    });
    child.on('message', (raw: unknown) => {
      const msg = raw as PeerMessage;
      if (msg.type === 'ready') {
        clearTimeout(timer);
        resolve(msg);
      } else if (msg.type === 'reply') {
        const p = pending.get(msg.id);
        if (p === undefined) return;
        pending.delete(msg.id);
        if (msg.error !== undefined) p.reject(new Error(msg.error));
        else p.resolve(msg.value);
      }
    });
  });

  const call = <T>(command: PeerCommandBody): Promise<T> => {
    if (exited) return Promise.reject(new Error('peer is closed'));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ ...command, id });
    });
  };

  const hostInUrl = ready.host.includes(':') ? `[${ready.host}]` : ready.host;
  return {
    host: ready.host,
    httpPort: ready.httpPort,
    tcpPort: ready.tcpPort,
    udpPort: ready.udpPort,
    origin: `http://${hostInUrl}:${ready.httpPort}`,
    pid: child.pid ?? -1,
    route: async (path, route) => void (await call({ op: 'route', path, route })),
    requests: () => call<readonly PeerRequest[]>({ op: 'requests' }),
    clear: async () => void (await call({ op: 'clear' })),
    stats: () => call<PeerStats>({ op: 'stats' }),
    close: async () => {
      if (!exited) child.kill('SIGKILL');
      await exitPromise;
    },
  };
}
