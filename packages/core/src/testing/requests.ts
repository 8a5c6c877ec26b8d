import type { EgressContext, EgressHttpRequest } from '../egress-policy.js';
import type { CapabilityName } from '../capability-name.js';
import { createPrincipal, type Principal } from '../principal.js';

/**
 * Builds an `EgressHttpRequest` from a URL the way the egress engine would (WHATWG parsing,
 * default ports, canonical host without brackets), for policy tests.
 *
 * @example
 * const req = createTestRequest('https://api.example.com/v1', { method: 'POST' });
 */
export function createTestRequest(
  url: string,
  init: { readonly method?: string; readonly headers?: Readonly<Record<string, string>> } = {},
): EgressHttpRequest {
  const u = new URL(url);
  const scheme = u.protocol as EgressHttpRequest['scheme'];
  const defaults: Record<string, number> = { 'http:': 80, 'ws:': 80, 'https:': 443, 'wss:': 443 };
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return {
    method: init.method ?? 'GET',
    url: u.href,
    scheme,
    host: host.endsWith('.') ? host.slice(0, -1) : host,
    port: u.port === '' ? (defaults[scheme] ?? 0) : Number(u.port),
    path: `${u.pathname}${u.search}`,
    headers: new Headers(init.headers),
  };
}

/**
 * Builds an `EgressContext` for tests; the default principal is a plugin called `test`.
 *
 * @example
 * policy.authorizeHttp(createTestRequest('https://a.example.com/'), createTestContext('http'));
 */
export function createTestContext(
  capability: CapabilityName = 'http',
  principal: Principal = createPrincipal('plugin', 'test'),
): EgressContext {
  return { principal, capability };
}
