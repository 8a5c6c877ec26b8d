import type { IncomingHttpHeaders } from 'node:http';
import { allow, deny, type Decision } from '@trust/core';

/** What the guard needs to know about one request: raw, as received. */
export interface GuardQuery {
  readonly method: string;
  /** The raw request target (`req.url`), path plus query. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /**
   * The headers as received (`req.rawHeaders`: name, value, name, value…). Node keeps only the
   * first of repeated `Host` headers in `headers`; with this, a repeated Host is refused (RFC 9112
   * §3.2). Servers pass it; omitted only where no raw form exists.
   */
  readonly rawHeaders?: readonly string[];
}

/** The compiled guard settings: the exact Host values this server answers to. */
export interface GuardSettings {
  /** Lowercase `host:port` values, e.g. `127.0.0.1:7385`, `localhost:7385`, `[::1]:7385`. */
  readonly allowedHosts: ReadonlySet<string>;
}

/** Query-string names that look like a credential. Refused so a token never lands in logs or history. */
const CREDENTIAL_PARAMS = ['token', 'access_token', 'auth', 'authorization', 'bearer', 'key', 'api_key', 'apikey'];

/**
 * The Host values a loopback server on `port` answers to, plus any extra (LAN) names.
 *
 * @example
 * const settings = createGuardSettings(7385); // 127.0.0.1:7385, localhost:7385, [::1]:7385
 */
export function createGuardSettings(port: number, extraHosts: readonly string[] = []): GuardSettings {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...extraHosts.map((h) => h.toLowerCase())];
  return { allowedHosts: new Set(hosts) };
}

/**
 * Decides whether a request may reach the control server at all, before any token check. Order:
 * one Host header, Host allow-list (DNS rebinding), credential in the query string, Origin, Sec-Fetch-Site.
 * A missing Origin / Sec-Fetch-Site is allowed: non-browser clients (the CLI) send neither.
 *
 * @example
 * const d = evaluateControlRequest(
 *   { method: 'GET', url: '/api/v1/agents', headers: { host: 'evil.test:80' } },
 *   settings,
 * );
 * // d.allow === false, d.code === 'CONTROL_HOST_NOT_ALLOWED'
 */
export function evaluateControlRequest(query: GuardQuery, settings: GuardSettings): Decision {
  if (query.rawHeaders !== undefined && countHeader(query.rawHeaders, 'host') > 1) {
    return deny('CONTROL_HOST_DUPLICATE', 'the request has more than one Host header', {
      rule: 'host-allow-list',
      hint: 'send exactly one Host header (RFC 9112 §3.2)',
    });
  }
  const host = single(query.headers.host)?.toLowerCase();
  if (host === undefined || !settings.allowedHosts.has(host)) {
    return deny('CONTROL_HOST_NOT_ALLOWED', `Host header ${JSON.stringify(host ?? '')} is not this control server`, {
      rule: 'host-allow-list',
      hint: `connect to one of ${[...settings.allowedHosts].join(', ')}`,
    });
  }
  const q = query.url.indexOf('?');
  if (q >= 0) {
    const params = new URLSearchParams(query.url.slice(q + 1));
    for (const name of params.keys()) {
      if (CREDENTIAL_PARAMS.includes(name.toLowerCase())) {
        return deny('CONTROL_TOKEN_IN_QUERY', `credential parameter "${name}" in the query string is refused`, {
          rule: 'no-token-in-query',
          hint:
            'send the token as "Authorization: Bearer <token>"; ' +
            'the studio takes it once in the URL fragment (#token=...)',
        });
      }
    }
  }
  const origin = single(query.headers.origin);
  if (origin !== undefined && origin !== `http://${host}`) {
    return deny('CONTROL_CROSS_ORIGIN', `requests from origin ${JSON.stringify(origin)} are refused`, {
      rule: 'same-origin-only',
      hint: 'the control API answers only its own studio page; there is no CORS',
    });
  }
  const site = single(query.headers['sec-fetch-site'])?.toLowerCase();
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return deny('CONTROL_CROSS_ORIGIN', `Sec-Fetch-Site "${site}" is refused`, {
      rule: 'same-origin-only',
      hint: 'open the studio directly from the URL the server printed',
    });
  }
  return allow('control-request');
}

function countHeader(raw: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) n++;
  return n;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
