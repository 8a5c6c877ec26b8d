import { createMemoryAuditSink, type AuditEvent, type AuditInput, type AuditSink, type EgressPolicy, type Principal } from '@trust/core';
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
        violations.push({ kind: 'egress', action: input.action, target: input.target, ...(input.code ? { code: input.code } : {}) });
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
