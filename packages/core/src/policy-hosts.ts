import { allow, deny, type Decision } from './decision.js';
import type { EgressHttpRequest, EgressPeer, EgressPolicy } from './egress-policy.js';
import { TrustError, type Problem } from './error.js';
import { matchHostRule, parseHostRules, type HostRule } from './host-rule.js';
import { createFilter } from './policy-filter.js';

const METHOD = /^[A-Z][A-Z-]*$/;

/** Parses rules once; throws `POLICY_INVALID` listing every bad rule. */
export function compileHostRules(rules: readonly string[], path: string, extra: Problem[] = []): HostRule[] {
  const { rules: parsed, problems } = parseHostRules(rules, path);
  const all = [...problems, ...extra];
  if (all.length > 0) {
    throw new TrustError(
      'POLICY_INVALID',
      `invalid policy: ${all.map((p) => `${p.path ?? ''} ${p.message}`).join('; ')}`,
      {
        problems: all,
        hint: all[0]?.hint,
      },
    );
  }
  return parsed;
}

/** The first rule matching the peer by name, or by its vetted IP for IP and CIDR rules. */
export function matchPeer(rules: readonly HostRule[], peer: EgressPeer): HostRule | undefined {
  return rules.find(
    (r) =>
      matchHostRule(r, peer.host, peer.port) ||
      (peer.ip !== undefined && (r.kind === 'ip' || r.kind === 'cidr') && matchHostRule(r, peer.ip, peer.port)),
  );
}

/**
 * Whether a rule that matched a `CONNECT` may open a tunnel to `port`: a rule that names the
 * port, or any matching rule for port 443. A host rule without a port must not turn an HTTP
 * grant into a raw TCP tunnel to every port of the host.
 */
export function matchesTunnelPort(rule: HostRule, port: number): boolean {
  return port === 443 || ('port' in rule && rule.port === port);
}

export interface AllowHostsOptions {
  /** Name used in decisions and audit events; default `allow-hosts`. */
  readonly name?: string;
  /** HTTP methods allowed (case-insensitive). `undefined` = any method; `[]` = none. */
  readonly methods?: readonly string[];
  /** Allow HTTP requests matching the rules. Default true; false makes a TCP/UDP-only gate. */
  readonly http?: boolean;
  /** Also allow TCP peers matching the rules. Default false (no `authorizeTcp`: deny). */
  readonly tcp?: boolean;
  /** Also allow UDP peers matching the rules. Default false (no `authorizeUdp`: deny). */
  readonly udp?: boolean;
}

/**
 * The rule a deny hint suggests. A bare host opens every port of it, so the port is named unless
 * the request used its scheme's default port and no rule limits that host to a port already.
 */
function suggestedRule(compiled: readonly HostRule[], request: EgressHttpRequest): string {
  const portScoped = compiled.some(
    (r) => 'port' in r && r.port !== undefined && matchHostRule({ ...r, port: undefined } as HostRule, request.host),
  );
  const defaultPort = (request.scheme === 'https:' || request.scheme === 'wss:' ? 443 : 80) === request.port;
  if (defaultPort && !portScoped) return request.host;
  const host = request.host.includes(':') && !request.host.startsWith('[') ? `[${request.host}]` : request.host;
  return `${host}:${request.port}`;
}

/**
 * A gate that allows HTTP requests to hosts matching `rules` (see `parseHostRule`), and TCP/UDP
 * peers only when `tcp`/`udp` is set. A `CONNECT` (a proxy tunnel) matches a rule without a port
 * only on port 443; another port must be named (`api.example.com:8443`), else the answer is
 * `EGRESS_TUNNEL_PORT_NOT_ALLOWED`. An allow from a rule with a port carries it (`Allow.port`). Anything else is denied
 * with `EGRESS_HOST_NOT_ALLOWED` (or `EGRESS_METHOD_NOT_ALLOWED`) and a hint naming what to add. An empty list allows
 * nothing. Rules are validated here, once: bad ones throw `POLICY_INVALID` listing every problem.
 *
 * @example
 * const gate = allowHosts(['api.example.com', '*.cdn.example.com'], { methods: ['GET'] });
 */
export function allowHosts(rules: readonly string[], options: AllowHostsOptions = {}): EgressPolicy {
  const name = options.name ?? 'allow-hosts';
  const methodProblems: Problem[] = [];
  const methods = options.methods?.map((m, i) => {
    const upper = m.toUpperCase();
    if (!METHOD.test(upper)) {
      methodProblems.push({
        code: 'POLICY_METHOD_INVALID',
        path: `methods[${i}]`,
        message: `${JSON.stringify(m)} is not an HTTP method`,
        hint: 'write e.g. "GET" or "POST"',
      });
    }
    return upper;
  });
  const compiled = compileHostRules(rules, 'rules', methodProblems);
  const methodSet = methods === undefined ? undefined : new Set(methods);

  const peerCheck =
    (kind: 'tcp' | 'udp') =>
    (peer: EgressPeer): Decision => {
      const hit = matchPeer(compiled, peer);
      if (hit) return allow(`${name}:${hit.text}`);
      return deny(
        'EGRESS_HOST_NOT_ALLOWED',
        `egress denied: ${kind} ${peer.host}:${peer.port} is not on the allow list (rule ${name})`,
        {
          rule: name,
          hint: `add "${peer.host}:${peer.port}" to the ${kind} allow list of ${name}`,
        },
      );
    };

  const policy: EgressPolicy = {
    name,
    role: 'gate',
    authorizeHttp(request: EgressHttpRequest): Decision {
      if (options.http === false) {
        return deny(
          'EGRESS_HOST_NOT_ALLOWED',
          `egress denied: ${name} allows no HTTP (${request.host}:${request.port})`,
          {
            rule: name,
            hint: 'allow the host in an HTTP allow list',
          },
        );
      }
      const tunnel = request.method.toUpperCase() === 'CONNECT';
      const hit = compiled.find(
        (r) => matchHostRule(r, request.host, request.port) && (!tunnel || matchesTunnelPort(r, request.port)),
      );
      if (!hit && tunnel && compiled.some((r) => matchHostRule(r, request.host, request.port))) {
        return deny(
          'EGRESS_TUNNEL_PORT_NOT_ALLOWED',
          `egress denied: CONNECT ${request.host}:${request.port} would be a raw tunnel; a host rule without ` +
            `a port opens tunnels to port 443 only (rule ${name})`,
          {
            rule: name,
            hint:
              `name the port in the rule ("${request.host}:${request.port}"), or grant tcp ` +
              `to ${request.host}:${request.port}`,
          },
        );
      }
      if (!hit) {
        return deny(
          'EGRESS_HOST_NOT_ALLOWED',
          `egress denied: ${request.host}:${request.port} is not on the allow list (rule ${name})`,
          {
            rule: name,
            hint: `add "${suggestedRule(compiled, request)}" to the allow list of ${name} to permit it`,
          },
        );
      }
      const method = request.method.toUpperCase();
      if (methodSet && !methodSet.has(method)) {
        return deny(
          'EGRESS_METHOD_NOT_ALLOWED',
          `egress denied: ${method} to ${request.host} is not an allowed method (rule ${name})`,
          {
            rule: name,
            hint: `add "${method}" to the methods of ${name} to permit it`,
          },
        );
      }
      return allow(`${name}:${hit.text}`, 'port' in hit && hit.port !== undefined ? { port: hit.port } : {});
    },
  };
  return Object.freeze({
    ...policy,
    ...(options.tcp ? { authorizeTcp: peerCheck('tcp') } : {}),
    ...(options.udp ? { authorizeUdp: peerCheck('udp') } : {}),
  });
}

/**
 * A filter that denies HTTP requests and TCP/UDP peers matching `rules` with
 * `EGRESS_HOST_DENIED`; for anything else it has no objection inside a chain (and on its own,
 * where a filter grants nothing, it denies with `EGRESS_NO_POLICY`).
 * An empty list denies nothing. Options `http`, `tcp`, `udp` (each default true) limit which
 * traffic it judges; a disabled kind is left to the other policies.
 *
 * @example
 * chain(denyHosts(['admin.example.com']), allowHosts(['*.example.com']));
 */
export function denyHosts(
  rules: readonly string[],
  options: { readonly name?: string; readonly http?: boolean; readonly tcp?: boolean; readonly udp?: boolean } = {},
): EgressPolicy {
  const name = options.name ?? 'deny-hosts';
  const compiled = compileHostRules(rules, 'rules');
  const denied = (what: string, hit: HostRule): Decision =>
    deny('EGRESS_HOST_DENIED', `egress denied: ${what} is on the deny list (rule ${name}: ${hit.text})`, {
      rule: name,
      hint: `remove "${hit.text}" from the deny list of ${name} to permit it`,
    });
  const peer =
    (kind: string) =>
    (p: EgressPeer): Decision | undefined => {
      const hit = matchPeer(compiled, p);
      return hit ? denied(`${kind} ${p.host}:${p.port}`, hit) : undefined;
    };
  return createFilter(name, {
    ...(options.http === false
      ? {}
      : {
          http: (request: EgressHttpRequest) => {
            const hit = compiled.find((r) => matchHostRule(r, request.host, request.port));
            return hit ? denied(`${request.host}:${request.port}`, hit) : undefined;
          },
        }),
    ...(options.tcp === false ? {} : { tcp: peer('tcp') }),
    ...(options.udp === false ? {} : { udp: peer('udp') }),
  });
}
