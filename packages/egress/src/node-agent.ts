import { Agent as HttpAgent, type AgentOptions } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import { connect as netConnect, isIP, type NetConnectOpts, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { deniedError } from '@trust/core';
import { toGuard } from './dispatcher.js';
import type { EgressGuard } from './guard.js';
import type { GuardOptions } from './guard-options.js';
import { canonicalHost } from './target.js';

type Oncreate = (err: Error | null, socket?: Socket) => void;
type ConnOpts = {
  host?: string | null;
  hostname?: string | null;
  port?: number | string | null;
  servername?: string;
} & Record<string, unknown>;

function guardedCreateConnection(guard: EgressGuard, secure: boolean) {
  return function createConnection(options: ConnOpts, oncreate: Oncreate): undefined {
    const host = canonicalHost(String(options.host ?? options.hostname ?? 'localhost'));
    const port = Number(options.port) || (secure ? 443 : 80);
    guard.resolveHost(host, port).then(
      (verdict) => {
        if (!verdict.allow) return oncreate(deniedError(verdict));
        const ip = verdict.addresses[0] as string;
        // Dial exactly the vetted address; TLS keeps the name for SNI and the certificate check.
        const base: Record<string, unknown> = { ...options, host: ip, port };
        delete base.lookup;
        const socket = secure
          ? tlsConnect({
              ...base,
              servername: options.servername ?? (isIP(host) === 0 ? host : undefined),
            } as unknown as ConnectionOptions)
          : netConnect(base as unknown as NetConnectOpts);
        oncreate(null, socket);
      },
      (err: unknown) => oncreate(err instanceof Error ? err : new Error(String(err))),
    );
    return undefined;
  };
}

/**
 * A `node:http` Agent whose every new connection is resolved, judged and dialled to the vetted
 * address, for libraries that take an `agent` option (axios, got, node-fetch). Like
 * `createEgressDispatcher`, it applies the guard only: the policy, redirects, limits and audit
 * live in `createEgressClient`. Guard options are checked strictly (`EGRESS_OPTIONS_INVALID`, an
 * unknown key `EGRESS_OPTIONS_UNKNOWN_KEY`); the other options are Node's own `AgentOptions`.
 *
 * @example
 * const agent = createEgressHttpAgent({ guard: { mode: 'strict' }, keepAlive: true });
 * http.get('http://169.254.169.254/', { agent }).on('error', (e) => console.log(e.code)); // EGRESS_METADATA
 */
export function createEgressHttpAgent(
  options: AgentOptions & { readonly guard?: EgressGuard | GuardOptions } = {},
): HttpAgent {
  const { guard, ...agentOptions } = options;
  const agent = new HttpAgent(agentOptions);
  (agent as unknown as { createConnection: unknown }).createConnection = guardedCreateConnection(toGuard(guard), false);
  return agent;
}

/** The `node:https` variant of {@link createEgressHttpAgent}. */
export function createEgressHttpsAgent(
  options: HttpsAgentOptions & { readonly guard?: EgressGuard | GuardOptions } = {},
): HttpsAgent {
  const { guard, ...agentOptions } = options;
  const agent = new HttpsAgent(agentOptions);
  (agent as unknown as { createConnection: unknown }).createConnection = guardedCreateConnection(toGuard(guard), true);
  return agent;
}
