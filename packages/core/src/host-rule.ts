import { formatIp, parseIp, parseIpWithZone, unmapIpv4, ipEquals, type IpAddress } from './address.js';
import { cidrContains, formatCidr, parseCidr, type Cidr } from './cidr.js';
import { TrustError, type Problem } from './error.js';
import { isCommonPublicSuffix } from './public-suffix.js';

/**
 * A compiled host rule. `text` is the canonical form (lowercase, no trailing dot, IPs and CIDRs
 * in `formatIp`/`formatCidr` form, `:port` when given).
 */
export type HostRule =
  | { readonly kind: 'exact'; readonly host: string; readonly port?: number; readonly text: string }
  | { readonly kind: 'wildcard'; readonly suffix: string; readonly port?: number; readonly text: string }
  | { readonly kind: 'ip'; readonly ip: IpAddress; readonly port?: number; readonly text: string }
  | { readonly kind: 'cidr'; readonly cidr: Cidr; readonly text: string };

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const PORT = /^[1-9][0-9]{0,4}$/;
const EXAMPLES =
  'e.g. "api.example.com", "*.example.com", "api.example.com:443", "10.0.0.5", "[::1]:8080" or "10.0.0.0/8"';

class RuleProblem extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

function checkName(name: string, rule: string): string {
  if (/[^\x21-\x7e]/.test(name)) {
    throw new RuleProblem(
      `host rule ${JSON.stringify(rule)} contains whitespace, control or non-ASCII characters`,
      `write an ASCII host name (internationalised names in their xn-- form), ${EXAMPLES}`,
    );
  }
  let host = name.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  const labels = host.split('.');
  if (host.length > 253 || !labels.every((l) => LABEL.test(l))) {
    throw new RuleProblem(
      `host rule ${JSON.stringify(rule)} is not a valid host name`,
      `use letters, digits, "-" and "_" in dot-separated labels, ${EXAMPLES}`,
    );
  }
  // The WHATWG URL parser reads a host whose last label is numeric as an IPv4 address, so a
  // rule spelled that way would never match a canonical request host.
  if (/^(?:[0-9]+|0x[0-9a-f]*)$/.test(labels[labels.length - 1] as string)) {
    throw new RuleProblem(
      `host rule ${JSON.stringify(rule)} looks like a non-standard IPv4 address`,
      'write the address as a dotted quad, e.g. "127.0.0.1"',
    );
  }
  return host;
}

function parsePort(text: string, rule: string): number {
  const n = Number(text);
  if (!PORT.test(text) || n > 65535) {
    throw new RuleProblem(
      `host rule ${JSON.stringify(rule)} has an invalid port ${JSON.stringify(text)}`,
      'write a port from 1 to 65535, e.g. "api.example.com:443"',
    );
  }
  return n;
}

function build(hostPart: string, portText: string | undefined, rule: string): HostRule {
  const port = portText === undefined ? undefined : parsePort(portText, rule);
  const suffix = port === undefined ? '' : `:${port}`;
  const withPort = <T extends object>(r: T): T => (port === undefined ? r : { ...r, port });
  const ip = parseIp(hostPart);
  if (ip) {
    const canonical = unmapIpv4(ip);
    const shown = canonical.family === 6 && port !== undefined ? `[${formatIp(canonical)}]` : formatIp(canonical);
    return withPort({ kind: 'ip' as const, ip: canonical, text: `${shown}${suffix}` });
  }
  if (hostPart.includes('*')) {
    if (!hostPart.startsWith('*.') || hostPart.indexOf('*', 1) >= 0) {
      throw new RuleProblem(
        `host rule ${JSON.stringify(rule)} has a wildcard that is not a leading "*." label`,
        'a wildcard may only be the whole first label, e.g. "*.example.com" (subdomains of example.com)',
      );
    }
    const base = checkName(hostPart.slice(2), rule);
    if (base.split('.').length < 2 || isCommonPublicSuffix(base)) {
      throw new RuleProblem(
        `host rule ${JSON.stringify(rule)} would match every name under the public suffix "${base}"`,
        `name a registrable domain, e.g. "*.example.${base}"`,
      );
    }
    return withPort({ kind: 'wildcard' as const, suffix: base, text: `*.${base}${suffix}` });
  }
  const host = checkName(hostPart, rule);
  return withPort({ kind: 'exact' as const, host, text: `${host}${suffix}` });
}

function parseOrThrow(text: string): HostRule {
  if (text === '') throw new RuleProblem('empty host rule', `write a host, ${EXAMPLES}`);
  if (text === '*' || text === '*.' || text === '**') {
    throw new RuleProblem(
      `host rule ${JSON.stringify(text)} would match every host`,
      `list the hosts to allow, ${EXAMPLES}; an empty list allows nothing`,
    );
  }
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    const inner = close < 0 ? undefined : parseIpWithZone(text.slice(0, close + 1));
    const after = close < 0 ? '' : text.slice(close + 1);
    if (inner?.ip.family !== 6 || inner.zone !== undefined || (after !== '' && !after.startsWith(':'))) {
      throw new RuleProblem(
        `host rule ${JSON.stringify(text)} is not a valid bracketed IPv6 address`,
        'write e.g. "[::1]:8080" or "2001:db8::1"',
      );
    }
    return build(formatIp(inner.ip), after === '' ? undefined : after.slice(1), text);
  }
  if (text.includes('/')) {
    const cidr = parseCidr(text);
    if (!cidr)
      throw new RuleProblem(
        `host rule ${JSON.stringify(text)} is not a valid CIDR block`,
        'write e.g. "10.0.0.0/8" or "fc00::/7" (CIDR rules take no port)',
      );
    return { kind: 'cidr', cidr, text: formatCidr(cidr) };
  }
  const colons = text.split(':').length - 1;
  if (colons >= 2) {
    const ip = parseIpWithZone(text);
    if (!ip || ip.zone !== undefined)
      throw new RuleProblem(
        `host rule ${JSON.stringify(text)} is not a valid IPv6 address`,
        'write e.g. "2001:db8::1", or "[2001:db8::1]:443" with a port',
      );
    return build(text, undefined, text);
  }
  if (colons === 1) {
    const i = text.indexOf(':');
    return build(text.slice(0, i), text.slice(i + 1), text);
  }
  return build(text, undefined, text);
}

/**
 * Parses one host rule. Forms: an exact name (`api.example.com`), a wildcard over subdomains
 * only (`*.example.com` matches `a.example.com` and `a.b.example.com`, not `example.com`), an
 * IPv4 or IPv6 literal (`10.0.0.5`, `::1`, `[::1]`), or a CIDR block (`10.0.0.0/8`). Names,
 * wildcards and IPs take an optional `:port` (`api.example.com:443`, `[::1]:8080`); CIDR blocks
 * do not. Rules are canonicalised: lowercase, without a trailing dot, IPv4-mapped IPv6 unmapped.
 *
 * Rejected (`POLICY_HOST_RULE_INVALID`, with a hint): empty, `*`, wildcards over a single label
 * (`*.com`) or a common public suffix (`*.co.uk`, `*.github.io`), a `*` anywhere but a leading
 * `*.` label, invalid characters, non-standard IPv4 spellings, zone ids and bad ports.
 *
 * @example
 * const rule = parseHostRule('*.Example.COM.');
 * matchHostRule(rule, 'api.example.com'); // true
 * matchHostRule(rule, 'example.com');     // false
 */
export function parseHostRule(text: string): HostRule {
  const r = tryParseHostRule(text);
  if (!r.ok) throw r.error;
  return r.rule;
}

/**
 * Like `parseHostRule`, but returns the error instead of throwing.
 *
 * @example
 * const r = tryParseHostRule('*.com'); // { ok: false, error: TrustError POLICY_HOST_RULE_INVALID }
 */
export function tryParseHostRule(text: string): { ok: true; rule: HostRule } | { ok: false; error: TrustError } {
  try {
    if (typeof text !== 'string') throw new RuleProblem('host rule is not a string', `write a string, ${EXAMPLES}`);
    return { ok: true, rule: Object.freeze(parseOrThrow(text)) };
  } catch (e) {
    if (!(e instanceof RuleProblem)) throw e;
    const problem: Problem = { code: 'POLICY_HOST_RULE_INVALID', message: e.message, hint: e.hint, severity: 'error' };
    return {
      ok: false,
      error: new TrustError('POLICY_HOST_RULE_INVALID', e.message, { hint: e.hint, problems: [problem] }),
    };
  }
}

/**
 * Parses a list of rules, collecting every problem (with `path` set to `${path}[i]`) instead of
 * stopping at the first.
 *
 * @example
 * const { rules, problems } = parseHostRules(['a.example.com', '*'], 'http.allow');
 * // problems[0].path === 'http.allow[1]'
 */
export function parseHostRules(list: readonly string[], path = ''): { rules: HostRule[]; problems: Problem[] } {
  const rules: HostRule[] = [];
  const problems: Problem[] = [];
  list.forEach((text, i) => {
    const r = tryParseHostRule(text);
    if (r.ok) rules.push(r.rule);
    else problems.push(...r.error.problems.map((p) => ({ ...p, path: `${path}[${i}]` })));
  });
  return { rules, problems };
}

/**
 * True when a concrete `host` (and `port`, when the rule names one) matches `rule`. The host is
 * canonicalised first (lowercase, trailing dot and brackets removed, IPv4-mapped IPv6
 * unmapped). A name never matches an IP or CIDR rule: nothing is resolved here. A rule with a
 * port never matches a query without one. This is a matcher, not a decision.
 *
 * @example
 * matchHostRule(parseHostRule('api.example.com:443'), 'API.example.com.', 443); // true
 */
export function matchHostRule(rule: HostRule, host: string, port?: number): boolean {
  if ('port' in rule && rule.port !== undefined && rule.port !== port) return false;
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h === '') return false;
  switch (rule.kind) {
    case 'exact':
      return h === rule.host;
    case 'wildcard':
      return h.length > rule.suffix.length + 1 && h.endsWith(`.${rule.suffix}`);
    case 'ip': {
      const ip = parseIp(h);
      return ip !== undefined && ipEquals(unmapIpv4(ip), rule.ip);
    }
    case 'cidr': {
      const ip = parseIp(h);
      return ip !== undefined && cidrContains(rule.cidr, ip);
    }
  }
}

/**
 * The canonical text of a rule.
 *
 * @example
 * formatHostRule(parseHostRule('API.Example.com.')); // 'api.example.com'
 */
export function formatHostRule(rule: HostRule): string {
  return rule.text;
}
