import type { EgressHttpRequest, EgressPolicy } from './egress-policy.js';
import type { Problem } from './error.js';
import { matchHostRule } from './host-rule.js';
import { createFilter } from './policy-filter.js';
import { compileHostRules } from './policy-hosts.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;

/**
 * A filter that sets `headers` on HTTP requests to hosts matching `match` (replacing any value
 * the caller sent), so credentials live in the host and never in the caller. Inside a chain it
 * never grants and never denies; on its own it denies (`EGRESS_NO_POLICY`), as a filter grants
 * nothing. An empty `match` list injects nothing. Header names and values are checked
 * once here (`POLICY_INVALID`); values are treated as secrets and never appear in errors.
 *
 * @example
 * chain(allowHosts(['api.example.com']), injectHeaders(['api.example.com'], { authorization: `Bearer ${token}` }));
 */
export function injectHeaders(
  match: readonly string[],
  headers: Readonly<Record<string, string>>,
  options: { readonly name?: string } = {},
): EgressPolicy {
  const name = options.name ?? 'inject-headers';
  const problems: Problem[] = [];
  const entries = Object.entries(headers);
  for (const [key, value] of entries) {
    if (!TOKEN.test(key)) {
      problems.push({
        code: 'POLICY_HEADER_INVALID',
        path: `headers.${key}`,
        message: `${JSON.stringify(key)} is not a valid header name`,
        hint: 'write e.g. "authorization" or "x-api-key"',
      });
    } else if (typeof value !== 'string' || BAD_VALUE.test(value)) {
      problems.push({
        code: 'POLICY_HEADER_INVALID',
        path: `headers.${key}`,
        message: `the value of header "${key}" is not a string or contains CR, LF or NUL`,
        hint: 'use a single-line value',
      });
    }
  }
  const rules = compileHostRules(match, 'match', problems);
  const frozen = Object.freeze(entries.map(([k, v]) => Object.freeze([k, v] as const)));
  return createFilter(name, {
    http(request: EgressHttpRequest) {
      if (rules.some((r) => matchHostRule(r, request.host, request.port))) {
        for (const [k, v] of frozen) request.headers.set(k, v);
      }
      return undefined;
    },
  });
}
