import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a control server keeps a connection that is not finishing its request. Together they
 * bound how long an idle or dripping (slow-loris) client holds a socket: a request whose headers
 * are not complete after `headersMs`, or whose body is not complete after `requestMs`, is closed
 * at the next check, i.e. within `max(headersMs, requestMs) + checkIntervalMs` (11 s by default);
 * an idle keep-alive connection within `keepAliveMs`.
 */
export interface ControlTimeouts {
  /** Time to receive the request headers, from the first byte of the connection. Default 10 s. */
  readonly headersMs: number;
  /** Time to receive the whole request, headers and body. Default 10 s (bodies are at most 256 KiB). */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this. Default 5 s. */
  readonly keepAliveMs: number;
  /** How often Node checks the two deadlines above (it defaults to 30 s, hence this). Default 1 s. */
  readonly checkIntervalMs: number;
}

export const DEFAULT_CONTROL_TIMEOUTS: ControlTimeouts = Object.freeze({
  headersMs: 10_000,
  requestMs: 10_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
});

/** Default cap on open connections per control server (upgraded WebSockets included). */
export const DEFAULT_MAX_CONNECTIONS = 128;

/** How long a refused connection may linger so the client reads the answer, at most. */
const REFUSAL_LINGER_MS = 2_000;

/** The `http.createServer` options that carry {@link ControlTimeouts}. */
export function serverTimeoutOptions(t: ControlTimeouts): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  // Node refuses a headers deadline longer than the request deadline.
  return {
    headersTimeout: Math.min(t.headersMs, t.requestMs),
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    connectionsCheckingInterval: t.checkIntervalMs,
  };
}

/** The connection bookkeeping of one server. */
export interface ConnectionLimiter {
  /** True for a connection that was refused: its requests and upgrades must not be served. */
  isRefused(socket: Socket | null | undefined): boolean;
  /** Open connections that were accepted. */
  open(): number;
}

/**
 * Caps the connections one server holds at `max`. A connection over the cap is answered at once
 * with `503 CONTROL_BUSY` (and `Connection: close`), then closed: gracefully once the client
 * hangs up, at the latest after 2 s, so the client can read why. The refused connection is not
 * served, whatever it sends. `onRefuse` is told (for the audit log).
 *
 * @example
 * const limiter = limitConnections(server, 128, (remote) => audit.record({ … }));
 * server.on('request', (req, res) => { if (limiter.isRefused(req.socket)) return; … });
 */
export function limitConnections(server: Server, max: number, onRefuse: (remote: string) => void): ConnectionLimiter {
  let open = 0;
  let lingering = 0;
  const refused = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    if (open < max) {
      open++;
      socket.once('close', () => open--);
      return;
    }
    refused.add(socket);
    socket.on('error', () => socket.destroy());
    onRefuse(socket.remoteAddress ?? 'unknown');
    // A flood of refused connections may not pile up either: beyond `max` lingering, drop at once.
    if (lingering >= max) {
      socket.destroy();
      return;
    }
    lingering++;
    socket.once('close', () => lingering--);
    const body = JSON.stringify({
      error: {
        code: 'CONTROL_BUSY',
        message: `this server holds its limit of ${max} connections`,
        hint: 'close idle connections or try again later',
      },
    });
    socket.end(
      'HTTP/1.1 503 Service Unavailable\r\n' +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Retry-After: 1\r\nConnection: close\r\n\r\n' +
        body,
    );
    setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
  });
  return { isRefused: (socket) => socket != null && refused.has(socket), open: () => open };
}
