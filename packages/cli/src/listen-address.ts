import { resolve } from 'node:path';
import { usageError } from './cli-error.js';

/** Where a listener binds: a unix socket or a loopback TCP address. */
export type ListenAddress = { readonly path: string } | { readonly host: '127.0.0.1' | '::1'; readonly port: number };

/**
 * Parses `--listen unix:/path`, `127.0.0.1:PORT`, `[::1]:PORT` or a bare port (on 127.0.0.1).
 * Only loopback addresses are accepted: anything else is a usage error.
 *
 * @example
 * parseListenAddress('127.0.0.1:8080', '/'); // { host: '127.0.0.1', port: 8080 }
 */
export function parseListenAddress(text: string, cwd: string): ListenAddress {
  if (text.startsWith('unix:')) {
    const path = text.slice(5);
    if (path === '')
      throw usageError(
        'CLI_USAGE_INVALID_VALUE',
        '--listen unix: needs a socket path',
        'for example --listen unix:/tmp/trust-proxy.sock',
      );
    return { path: resolve(cwd, path) };
  }
  const m = /^(?:(127\.0\.0\.1|\[::1\]|localhost):)?(\d{1,5})$/.exec(text);
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port >= 0 && port <= 65535)) {
    throw usageError(
      'CLI_USAGE_INVALID_VALUE',
      `--listen must be unix:/path, 127.0.0.1:PORT or [::1]:PORT (loopback only), got '${text}'`,
      'for example --listen 127.0.0.1:3128',
    );
  }
  return { host: m[1] === '[::1]' ? '::1' : '127.0.0.1', port };
}
