import { deny, type Deny } from '@trust/core';
import { canonicalHost } from './target.js';

/** Canonicalises a TCP/UDP host with the same WHATWG host parser the URL paths use. */
export function parseSocketTarget(host: string, port: number): { host: string; port: number } | Deny {
  const bad = (why: string) =>
    deny('EGRESS_TARGET_INVALID', `egress denied: ${why}`, {
      rule: 'target-syntax',
      hint: 'pass a host name or IP address and a port 1-65535, e.g. ("db.example.com", 5432)',
    });
  if (!Number.isInteger(port) || port < 1 || port > 65535) return bad(`${String(port)} is not a port`);
  if (typeof host !== 'string' || host === '' || /[/?#@\\\s]/.test(host))
    return bad('the host is not a bare host name or address');
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  let url: URL;
  try {
    url = new URL(`http://${bracketed}/`);
  } catch {
    return bad('the host does not parse');
  }
  if (url.port !== '' || url.pathname !== '/' || url.username !== '')
    return bad('the host must not carry a port, path or userinfo');
  return { host: canonicalHost(url.hostname), port };
}
