import type { AuditEvent, AuditInput, AuditSink, EgressPolicy, Principal } from '@trust/core';
import { TrustError } from '@trust/core';

/** The address-guard options handed to the run's egress proxy. */
export interface SandboxGuardOptions {
  readonly mode?: 'strict' | 'default' | 'allow-local';
  readonly protectedPorts?: readonly number[];
  readonly resolve?: (host: string) => Promise<readonly string[]>;
  readonly allowCidrs?: readonly string[];
  readonly denyCidrs?: readonly string[];
}

/** What a proxy factory receives: one listener per run, keyed by principal. */
export interface EgressProxyRequest {
  readonly policy: EgressPolicy;
  readonly guard: SandboxGuardOptions;
  readonly audit: AuditSink;
  readonly principal: Principal;
  readonly listen: { readonly path: string } | { readonly host: '127.0.0.1'; readonly port: number };
}

/** A started proxy listener. */
export interface EgressProxyHandle {
  readonly address: unknown;
  close(): Promise<void> | void;
}

/** Starts an egress proxy listener (default: `createEgressProxy` from `@trust/egress`). */
export type EgressProxyFactory = (request: EgressProxyRequest) => Promise<EgressProxyHandle> | EgressProxyHandle;

/** The default factory: `@trust/egress`'s forward proxy (HTTP + CONNECT). */
export async function defaultProxyFactory(request: EgressProxyRequest): Promise<EgressProxyHandle> {
  const mod = (await import('@trust/egress')) as Record<string, unknown>;
  const create = mod.createEgressProxy as ((o: EgressProxyRequest) => Promise<EgressProxyHandle> | EgressProxyHandle) | undefined;
  if (typeof create !== 'function') {
    throw new TrustError('SANDBOX_UNAVAILABLE', '@trust/egress does not provide createEgressProxy in this build', {
      hint: 'rebuild @trust/egress, or pass createProxy to createSandbox',
    });
  }
  return create(request);
}

/** The proxy variables a sandboxed process sees for a proxy on 127.0.0.1:`port`. */
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
  return {
    record(input: AuditInput): AuditEvent {
      if (input.decision === 'deny' && violations.length < 100) {
        violations.push({ kind: 'egress', action: input.action, target: input.target, ...(input.code ? { code: input.code } : {}) });
      }
      if (inner) return inner.record(input);
      return { ...input, v: 1, time: new Date().toISOString(), prev: '0'.repeat(64), hash: '0'.repeat(64) };
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
