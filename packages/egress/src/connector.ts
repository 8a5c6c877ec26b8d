import { deniedError, parseIp } from '@trust/core';
import { buildConnector } from 'undici';
import type { EgressGuard } from './guard.js';
import { canonicalHost } from './target.js';

/** Reported after each successful pinned dial. */
export interface DialRecord {
  readonly host: string;
  readonly port: number;
  /** The vetted address the socket was opened to. */
  readonly ip: string;
}

export interface GuardedConnectorOptions {
  readonly connectTimeoutMs: number;
  /** Called after every successful dial (for audit: which address a connection really reached). */
  readonly onDial?: (record: DialRecord) => void;
}

const RETRIABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * An undici connector that enforces the guard where the bytes leave: for every new connection
 * it resolves the host, judges every address with the port, and dials exactly a vetted address.
 * TLS keeps the original name for SNI and the certificate check. Covers IP literals, names,
 * pooled reconnects and WebSocket handshakes, and a DNS answer that changes between a pre-flight
 * check and the connect (rebinding) is judged again here.
 */
export function createGuardedConnector(guard: EgressGuard, options: GuardedConnectorOptions): buildConnector.connector {
  const dialer = buildConnector({ timeout: options.connectTimeoutMs });
  return (opts, callback) => {
    const host = canonicalHost(opts.hostname);
    const port = Number(opts.port) || (opts.protocol === 'https:' || opts.protocol === 'wss:' ? 443 : 80);
    const isName = parseIp(host) === undefined;
    guard.resolveHost(host, port).then(
      (verdict) => {
        if (!verdict.allow) {
          callback(deniedError(verdict), null);
          return;
        }
        const candidates = verdict.addresses;
        const dial = (i: number): void => {
          const ip = candidates[i] as string;
          dialer(
            {
              hostname: ip,
              host: ip,
              protocol: opts.protocol,
              port: String(port),
              servername: isName ? (opts.servername ?? host) : undefined,
              localAddress: opts.localAddress ?? null,
            },
            (err, socket) => {
              if (err !== null) {
                const code = (err as { code?: string }).code ?? '';
                if (i + 1 < candidates.length && RETRIABLE.has(code)) return dial(i + 1);
                callback(err, null);
                return;
              }
              options.onDial?.({ host, port, ip });
              callback(null, socket);
            },
          );
        };
        dial(0);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  };
}
