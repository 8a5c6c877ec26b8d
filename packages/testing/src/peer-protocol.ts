/**
 * The control protocol between a test and its peer child process. Messages travel over the
 * Node IPC channel of `child_process.fork` as plain JSON. Version 1.
 */

/** How the peer answers a path. Every route is data, so it can cross the process boundary. */
export type PeerRoute =
  /** Answers 200 (or `status`) with JSON `{ method, path, headers, body }` describing the request. */
  | { readonly kind: 'echo'; readonly status?: number }
  /** Answers with a JSON body. */
  | {
      readonly kind: 'json';
      readonly body: unknown;
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Answers with a text body. */
  | {
      readonly kind: 'text';
      readonly body: string;
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Answers `status` (301, 302, 303, 307, 308, …) with the given `Location`, verbatim. */
  | { readonly kind: 'redirect'; readonly status: number; readonly location: string }
  /** Reads the request and never answers. */
  | { readonly kind: 'stall' }
  /** Slow-loris: writes the status line, then one header line every `intervalMs`, never finishing. */
  | { readonly kind: 'slow-headers'; readonly intervalMs: number }
  /** Sends headers at once, then one small body chunk every `intervalMs`, never finishing. */
  | { readonly kind: 'slow-body'; readonly intervalMs: number }
  /** Streams `bytes` bytes of `x`. `declareLength` sends a `content-length` (default: chunked). */
  | { readonly kind: 'huge-body'; readonly bytes: number; readonly declareLength?: boolean }
  /** Sends one response header whose value is `bytes` long. */
  | { readonly kind: 'huge-headers'; readonly bytes: number };

/** One request the peer received (HTTP), in arrival order. */
export interface PeerRequest {
  readonly method: string;
  /** Request target as sent (origin-form path, or absolute-form through a proxy). */
  readonly path: string;
  /** Lowercase header names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as UTF-8 text (empty when none). */
  readonly body: string;
}

/** Parent → child. */
export type PeerCommand =
  | { readonly id: number; readonly op: 'route'; readonly path: string; readonly route: PeerRoute }
  | { readonly id: number; readonly op: 'requests' }
  | { readonly id: number; readonly op: 'clear' }
  | { readonly id: number; readonly op: 'stats' };

/** Child → parent. */
export type PeerMessage =
  | {
      readonly type: 'ready';
      readonly v: 1;
      readonly httpPort: number;
      readonly tcpPort: number;
      readonly udpPort: number;
      readonly host: string;
    }
  | { readonly type: 'reply'; readonly id: number; readonly value?: unknown; readonly error?: string };

/** What the peer has seen, beyond HTTP requests. */
export interface PeerStats {
  /** TCP connections accepted by the HTTP listener. */
  readonly httpConnections: number;
  /** TCP connections accepted by the raw TCP echo listener. */
  readonly tcpConnections: number;
  /** WebSocket handshakes completed. */
  readonly wsHandshakes: number;
  /** UDP datagrams received by the UDP echo listener (UTF-8), in order. */
  readonly udpMessages: readonly string[];
}

/** Options passed to the child on start (as JSON in argv). */
export interface PeerStartOptions {
  /** Loopback address to listen on: `127.0.0.1` (default) or `::1`. */
  readonly host?: '127.0.0.1' | '::1';
  readonly routes?: Readonly<Record<string, PeerRoute>>;
}
