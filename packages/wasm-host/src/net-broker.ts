import { createEgressClient, type EgressClient, type EgressLimits, type GuardOptions } from '@trust/egress';
import { allow, checkOptions, deny, type AuditSink, type EgressPolicy, type Principal } from '@trust/core';
import { z } from 'zod';
import { createHttpBroker } from './http-broker.js';
import { createLookupNames, createSocketBroker, withLookupNames } from './socket-broker.js';

/** Options the host forwards to `@trust/egress` for a plugin's network client. */
export interface BrokerOptions {
  readonly principal: Principal;
  readonly policy: EgressPolicy;
  /** Address-guard options for egress (`mode` defaults to `'strict'`). */
  readonly guard?: GuardOptions;
  readonly audit?: AuditSink;
  /** Egress limits (timeouts, response size); `httpTimeoutMs` caps every request. */
  readonly limits?: EgressLimits;
  readonly httpTimeoutMs?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The strict schema of `BrokerOptions`; guard and limits are checked by `@trust/egress` itself. */
const brokerOptionsSchema = z
  .object({
    principal: z
      .custom<Principal>(
        (v) => isObject(v) && typeof v.kind === 'string' && typeof v.id === 'string',
        'expected a Principal ({ kind, id })',
      )
      .describe('the plugin principal, e.g. createPrincipal("plugin", "weather")'),
    policy: z
      .custom<EgressPolicy>(
        (v) => isObject(v) && typeof v.authorizeHttp === 'function',
        'expected an EgressPolicy (an object with authorizeHttp)',
      )
      .describe('the composed policy of the plugin, e.g. allowHosts(["api.example.com"])'),
    guard: z
      .custom<GuardOptions>(isObject, 'expected @trust/egress guard options (an object)')
      .optional()
      .describe('address-guard options, checked by @trust/egress, e.g. { mode: "strict" }'),
    audit: z
      .custom<AuditSink>((v) => isObject(v) && typeof v.record === 'function', 'expected an AuditSink (with record)')
      .optional()
      .describe('audit sink, e.g. createMemoryAuditSink()'),
    limits: z
      .custom<EgressLimits>(isObject, 'expected @trust/egress limits (an object)')
      .optional()
      .describe('egress limits, checked by @trust/egress, e.g. { maxResponseBytes: 10485760 }'),
    httpTimeoutMs: z
      .number()
      .positive()
      .max(2_147_483_647)
      .optional()
      .describe('cap on every brokered HTTP request in ms, e.g. 30000'),
  })
  .strict();

/** A policy for the coarse tier (`network`/`sockets`): every destination, so only the address floor applies. */
export const FLOOR_ONLY_POLICY: EgressPolicy = Object.freeze({
  name: 'network-floor',
  authorizeHttp: () => allow('network-floor'),
  authorizeTcp: () => allow('network-floor'),
  authorizeUdp: () => allow('network-floor'),
});

/**
 * The policy a plugin's egress client runs: HTTP through the plugin's policy only with `http`;
 * TCP/UDP through it only with `tcp`/`udp`; with `network`/`sockets`, TCP/UDP to any
 * destination the address floor allows. Anything not granted is denied.
 */
export function composePolicy(
  plan: { http: boolean; tcp: boolean; udp: boolean; coarse: boolean },
  policy: EgressPolicy | undefined,
): EgressPolicy {
  const notGranted = (what: string) => () =>
    deny('EGRESS_POLICY_DENIED', `${what} is not granted to this plugin`, {
      hint: `add "${what}" to the plugin's capabilities`,
    });
  const composed: EgressPolicy = {
    name: `${policy?.name ?? 'no-policy'}${plan.coarse ? '+network-floor' : ''}`,
    authorizeHttp: plan.http && policy ? (r, c) => policy.authorizeHttp(r, c) : notGranted('http'),
    // granted but the policy has no authorizeTcp/Udp: leave it absent, which egress denies
    authorizeTcp: plan.coarse
      ? FLOOR_ONLY_POLICY.authorizeTcp!
      : !plan.tcp
        ? notGranted('tcp')
        : policy?.authorizeTcp
          ? (p, c) => policy.authorizeTcp!(p, c)
          : undefined,
    authorizeUdp: plan.coarse
      ? FLOOR_ONLY_POLICY.authorizeUdp!
      : !plan.udp
        ? notGranted('udp')
        : policy?.authorizeUdp
          ? (p, c) => policy.authorizeUdp!(p, c)
          : undefined,
  };
  return Object.freeze(composed);
}

/**
 * The broker options of one plugin: its principal, its policy composed with its grants, and the
 * host's guard, audit sink and HTTP limits.
 */
export function pluginBrokerOptions(
  plugin: {
    plan: { http: boolean; tcp: boolean; udp: boolean; coarse: boolean };
    policy: EgressPolicy | undefined;
    principal: Principal;
  },
  host: {
    guard?: GuardOptions | undefined;
    audit?: AuditSink | undefined;
    limits: { httpTimeoutMs: number; maxHttpResponseBytes: number };
  },
): BrokerOptions {
  return {
    principal: plugin.principal,
    policy: composePolicy(plugin.plan, plugin.policy),
    ...(host.guard ? { guard: host.guard } : {}),
    ...(host.audit ? { audit: host.audit } : {}),
    httpTimeoutMs: host.limits.httpTimeoutMs,
    limits: { maxResponseBytes: host.limits.maxHttpResponseBytes },
  };
}

/**
 * The main-thread side of a plugin's network: answers the worker's bridge calls through an
 * `@trust/egress` client created for this plugin (its principal, its policy, the host's guard
 * and audit). The host never opens a socket itself. The options are checked once, strictly
 * (`WASM_OPTIONS_INVALID`; an unknown key is a `WASM_OPTIONS_UNKNOWN_KEY` problem with "did you
 * mean"); the guard options and limits are then checked by `createEgressClient`
 * (`EGRESS_OPTIONS_INVALID`).
 *
 * @example
 * const broker = createNetworkBroker({ principal, policy: allowHosts(['api.example.com']) });
 * broker.close();
 */
export function createNetworkBroker(options: BrokerOptions): {
  handle(op: string, payload: unknown): Promise<unknown>;
  close(): void;
} {
  checkOptions(
    {
      where: 'createNetworkBroker',
      schema: brokerOptionsSchema,
      invalidCode: 'WASM_OPTIONS_INVALID',
      unknownKeyCode: 'WASM_OPTIONS_UNKNOWN_KEY',
    },
    options,
  );
  const names = createLookupNames();
  const client: EgressClient = createEgressClient({
    policy: withLookupNames(options.policy, names),
    guard: { mode: 'strict', ...(options.guard ?? {}) },
    ...(options.audit ? { audit: options.audit } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const sockets = createSocketBroker({
    client,
    principal: options.principal,
    names,
    ...(options.audit ? { audit: options.audit } : {}),
  });

  const http = createHttpBroker({
    client,
    principal: options.principal,
    ...(options.httpTimeoutMs !== undefined ? { httpTimeoutMs: options.httpTimeoutMs } : {}),
  });

  return {
    handle(op, payload) {
      if (op.startsWith('http.')) return http.handle(op, payload);
      return sockets.handle(op, payload as never);
    },
    close() {
      http.close();
      sockets.close();
      client.close().catch(() => undefined); // pooled connections may already be destroyed
    },
  };
}
