import {
  createMemoryAuditSink,
  deny,
  type AuditEvent,
  type AuditInput,
  type AuditSink,
  type CapabilitySet,
  type Decision,
  type EgressPolicy,
  type Principal,
} from '@trust/core';
import { createEgressProxy, type GuardOptions } from '@trust/egress';

/** The address-guard options handed to the run's egress proxy (see `@trust/egress` GuardOptions). */
export type SandboxGuardOptions = GuardOptions;

/** What a proxy factory receives: one listener per run, keyed by principal. */
export interface EgressProxyRequest {
  readonly policy: EgressPolicy;
  readonly guard: SandboxGuardOptions;
  readonly audit: AuditSink;
  readonly principal: Principal;
  readonly listen: { readonly path: string } | { readonly host: '127.0.0.1'; readonly port: number };
  /** How CONNECT tunnels are judged: as HTTPS (`http` capability) or as TCP peers (`tcp` only). */
  readonly connectAs: 'http' | 'tcp';
  /**
   * With the `udp` capability: SOCKS5 UDP ASSOCIATE is offered, and clients are told to send
   * datagrams to `announce` (the in-sandbox loopback port of the launcher's datagram bridge).
   */
  readonly udp?: { readonly announce: { readonly host: '127.0.0.1'; readonly port: number } };
}

/** A started proxy listener. */
export interface EgressProxyHandle {
  readonly address: { readonly path: string } | { readonly host: string; readonly port: number };
  close(): Promise<void>;
}

/** Starts an egress proxy listener (default: `createEgressProxy` from `@trust/egress`). */
export type EgressProxyFactory = (request: EgressProxyRequest) => Promise<EgressProxyHandle>;

/** The default factory: `@trust/egress`'s forward proxy (HTTP + CONNECT) on the run's own listener. */
export function defaultProxyFactory(request: EgressProxyRequest): Promise<EgressProxyHandle> {
  return createEgressProxy(request);
}

/**
 * The policy of the coarse tier (`network`/`sockets`) when the caller passes no `egress`: every
 * HTTP request, TCP peer and UDP peer is allowed by the policy, so only the address guard decides,
 * and that tier always runs the guard in `strict` mode (see `floorGuard`): any public host, no
 * loopback, private, CGNAT, link-local, metadata, ULA or reserved address.
 *
 * @example
 * const policy = networkTierPolicy(); // name 'network-tier'
 */
export function networkTierPolicy(): EgressPolicy {
  const yes = (): Decision => ({ allow: true, rule: 'network-tier' });
  return { name: 'network-tier', authorizeHttp: yes, authorizeTcp: yes, authorizeUdp: yes };
}

/**
 * The address guard of the coarse tier: the caller's guard options (resolver, timeouts, denied
 * CIDRs, protected ports) with `mode: 'strict'` and no `allowCidrs`, so nothing can lower the
 * floor below public addresses.
 *
 * @example
 * floorGuard({ mode: 'allow-local', allowCidrs: ['10.0.0.0/8'] }); // { mode: 'strict' }
 */
export function floorGuard(guard: SandboxGuardOptions | undefined): SandboxGuardOptions {
  const { allowCidrs: _ignored, ...rest } = guard ?? {};
  return { ...rest, mode: 'strict' };
}

/**
 * The egress policy as the run's proxy sees it: each kind of traffic is judged by the caller's
 * policy only when the sandbox policy grants that capability (`http`: HTTP and CONNECT; `tcp`:
 * CONNECT-as-TCP and SOCKS5 CONNECT; `udp`: SOCKS5 UDP ASSOCIATE), so a policy that happens to
 * allow a host for HTTP does not open UDP to it, and the other way round. The coarse tier
 * (`network`/`sockets`) grants all three.
 *
 * @example
 * const forRun = grantedEgress(allowHosts(['api.example.com'], { udp: true }), policy.capabilities);
 */
export function grantedEgress(egress: EgressPolicy, caps: CapabilitySet): EgressPolicy {
  const coarse = caps.egressTier() === 'coarse';
  const name = egress.name ?? 'policy';
  const missing = (cap: string, what: string): Decision =>
    deny('SANDBOX_CAPABILITY_MISSING', `egress denied: the sandbox policy does not grant "${cap}" (${what})`, {
      rule: 'sandbox-capability',
      hint: `add "${cap}" to the sandbox capabilities`,
    });
  const http = coarse || caps.has('http');
  const tcp = coarse || caps.has('tcp');
  const udp = coarse || caps.has('udp');
  return {
    name,
    ...(egress.role !== undefined ? { role: egress.role } : {}),
    authorizeHttp: (request, context) =>
      http
        ? egress.authorizeHttp(request, context)
        : missing('http', `${request.method} ${request.host}:${request.port}`),
    ...(tcp && egress.authorizeTcp ? { authorizeTcp: (peer, context) => egress.authorizeTcp!(peer, context) } : {}),
    ...(!tcp ? { authorizeTcp: (peer) => missing('tcp', `${peer.host}:${peer.port}`) } : {}),
    ...(udp && egress.authorizeUdp ? { authorizeUdp: (peer, context) => egress.authorizeUdp!(peer, context) } : {}),
    ...(!udp ? { authorizeUdp: (peer) => missing('udp', `${peer.host}:${peer.port}`) } : {}),
  };
}

/**
 * The proxy variables a sandboxed process sees for a proxy on 127.0.0.1:`port`.
 *
 * @example
 * proxyEnv(3128).HTTPS_PROXY; // 'http://127.0.0.1:3128'
 */
export function proxyEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
  };
}

/** An audit sink that forwards to `inner` and keeps this run's denials as violations. */
export function createRunAudit(inner: AuditSink | undefined, violations: SandboxViolation[]): AuditSink {
  // Without a caller sink the run still keeps a real, chained record for its own lifetime.
  const fallback = createMemoryAuditSink();
  return {
    record(input: AuditInput): AuditEvent {
      if (input.decision === 'deny' && violations.length < 100) {
        violations.push({
          kind: 'egress',
          action: input.action,
          target: input.target,
          ...(input.code ? { code: input.code } : {}),
        });
      }
      return (inner ?? fallback).record(input);
    },
  };
}

/** Something the run tried and the sandbox refused, as far as the host can observe it. */
export interface SandboxViolation {
  readonly kind: 'egress';
  readonly action: string;
  readonly target: string;
  readonly code?: string;
}
