// Test-only helpers of the proxy's hostile-client tests (not exported from the package).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** A loopback upstream that records every byte it receives and how many requests ran at once. */
export interface RecordingUpstream {
  readonly port: number;
  /** Every byte received, all connections, in arrival order (latin1). */
  raw(): string;
  readonly requests: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[];
  /** The most requests in flight at one moment. */
  readonly maxInflight: number;
  readonly connections: number;
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts the upstream. `/slow` answers after `slowMs`; every path answers 200 with JSON
 * `{ path, headers, bodyBytes }`.
 */
export async function startRecordingUpstream(slowMs = 20): Promise<RecordingUpstream> {
  let raw = '';
  let inflight = 0;
  let maxInflight = 0;
  let connections = 0;
  const requests: RecordingUpstream['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    inflight += 1;
    maxInflight = Math.max(maxInflight, inflight);
    let body = '';
    req.setEncoding('latin1');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const answer = (): void => {
        inflight -= 1;
        const text = JSON.stringify({
          path: req.url,
          headers: req.headers,
          bodyBytes: Buffer.byteLength(body, 'latin1'),
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      };
      if ((req.url ?? '').startsWith('/slow')) setTimeout(answer, slowMs);
      else answer();
    });
  });
  server.on('connection', (s: Socket) => {
    connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('data', (d: Buffer) => (raw += d.toString('latin1')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    raw: () => raw,
    requests,
    get maxInflight() {
      return maxInflight;
    },
    get connections() {
      return connections;
    },
    reset() {
      raw = '';
      requests.length = 0;
      maxInflight = 0;
      connections = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A raw client connection: what it wrote, everything it received, and when it closed. */
export interface RawClient {
  readonly socket: Socket;
  received(): string;
  /** Resolves with everything received once the proxy closed the connection. */
  readonly closed: Promise<string>;
  /** Resolves once `text` appears in what was received. */
  waitFor(text: string): Promise<string>;
}

/** Opens a raw TCP connection to the proxy and writes `text` (if any). */
export function rawClient(port: number, text?: string): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    let got = '';
    const waiters: (() => void)[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    const closed = new Promise<string>((done) => socket.on('close', () => done(got)));
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      for (const w of waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      if (text !== undefined) socket.write(text);
      resolve({
        socket,
        received: () => got,
        closed,
        waitFor: (t) =>
          new Promise<string>((done, fail) => {
            const check = (): void => {
              if (got.includes(t)) done(got);
              else if (socket.destroyed)
                fail(new Error(`closed before ${JSON.stringify(t)}; got ${JSON.stringify(got)}`));
              else waiters.push(check);
            };
            socket.once('close', check);
            check();
          }),
      });
    });
    socket.once('error', reject);
  });
}

/** Status codes of every response in `text`, in order (interim `100` included). */
export function statuses(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}
