import { deny, parseIp, type Deny, type IpAddress } from '@trust/core';

/** A parsed, canonical destination: what the WHATWG URL parser decided the host is. */
export interface Target {
  readonly url: URL;
  readonly scheme: string;
  /** Lowercase name without the trailing dot, dotted-quad IPv4, or IPv6 without brackets. */
  readonly host: string;
  /** The literal address when the host is one. */
  readonly ip?: IpAddress;
  /** Effective port: the explicit one, else the scheme's default. */
  readonly port: number;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

/** Canonical host text of a URL: brackets stripped, one trailing dot dropped. */
export function canonicalHost(hostname: string): string {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/** The port a URL dials. */
export function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return DEFAULT_PORTS[url.protocol] ?? 0;
}

/**
 * Parses a URL with the WHATWG parser (the one undici uses), then applies the scheme allow-list
 * and refuses userinfo. Nothing here re-parses the raw string.
 */
export function parseTarget(input: string | URL, schemes: readonly string[]): Target | Deny {
  let url: URL;
  try {
    url = new URL(typeof input === 'string' ? input : input.href);
  } catch {
    return deny('EGRESS_URL_INVALID', 'egress denied: the URL does not parse', {
      rule: 'url-syntax',
      hint: 'pass an absolute http(s) URL such as "https://example.com/path"',
    });
  }
  if (!schemes.includes(url.protocol)) {
    return deny('EGRESS_SCHEME', `egress denied: scheme ${url.protocol} is not allowed here`, {
      rule: 'schemes',
      hint: `use one of ${schemes.join(', ')}`,
    });
  }
  if (url.username !== '' || url.password !== '') {
    return deny('EGRESS_USERINFO', 'egress denied: the URL carries credentials (userinfo)', {
      rule: 'no-userinfo',
      hint: 'remove "user:pass@" from the URL; let the policy inject credentials as headers',
    });
  }
  const host = canonicalHost(url.hostname);
  if (host === '') {
    return deny('EGRESS_URL_INVALID', 'egress denied: the URL has no host', {
      rule: 'url-syntax',
      hint: 'pass an absolute URL with a host',
    });
  }
  const port = effectivePort(url);
  return new ParsedTarget(url, host, port);
}

/**
 * A parsed target. An IP literal's bytes are only needed to explain a decision (the guard caches
 * verdicts by host text), so they are parsed on first use rather than on every request.
 */
class ParsedTarget implements Target {
  readonly url: URL;
  readonly scheme: string;
  readonly host: string;
  readonly port: number;
  #ip: IpAddress | undefined | null = null;

  constructor(url: URL, host: string, port: number) {
    this.url = url;
    this.scheme = url.protocol;
    this.host = host;
    this.port = port;
  }

  get ip(): IpAddress | undefined {
    if (this.#ip === null) this.#ip = parseIp(this.host);
    return this.#ip;
  }
}

/** True when the value returned by {@link parseTarget} is a deny. */
export function isDenyResult(value: Target | Deny): value is Deny {
  return (value as Deny).allow === false;
}

/** `host:port` for messages, IPv6 in brackets. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
