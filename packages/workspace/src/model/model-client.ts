import { TrustError, allowHosts, chain, injectHeaders } from '@trust/core';
import type { AuditSink } from '@trust/core';
import { createEgressClient } from '@trust/egress';
import { createAnthropicProvider, createOpenAIProvider } from '@trust/agent-runtime';
import type { ModelProvider, ProviderHttpClient } from '@trust/agent-runtime';
import type { HttpModelPlan } from './model-plan.js';

/** A real model provider with the egress client it talks through. */
export interface ModelClient {
  readonly provider: ModelProvider;
  /** One line for people: provider, model, host and where the key comes from (never the key). */
  readonly describe: string;
  close(): Promise<void>;
}

/** Options of {@link createModelClient}. */
export interface ModelClientOptions {
  /** Ports the model client must never reach on a local address (the control server's). `undefined`/`[]`: none. */
  readonly protectedPorts?: readonly number[];
  /** Receives one event per egress decision. `undefined`: no audit. */
  readonly audit?: AuditSink;
}

/**
 * Builds the provider a plan describes, over its own egress client. The client's policy allows
 * POST to the plan's `host:port` only and injects the API key there, read from
 * `env[plan.keyEnv]`: the key lives in that policy alone, so neither the provider, the model nor
 * the agent's code ever holds it, and a redirect elsewhere is denied. The address guard runs in
 * the plan's mode (`strict` unless local models were allowed) with `protectedPorts`.
 *
 * @example
 * const client = createModelClient(plan, process.env, { protectedPorts: [controlPort] });
 * const agent = openAgent(file, { provider: client.provider });
 */
export function createModelClient(
  plan: HttpModelPlan,
  env: Readonly<Record<string, string | undefined>>,
  options: ModelClientOptions = {},
): ModelClient {
  const key = env[plan.keyEnv] ?? '';
  if (key === '') {
    throw new TrustError('MODEL_API_KEY_MISSING', `$${plan.keyEnv} is not set`, {
      hint: `export ${plan.keyEnv}=<your key>`,
    });
  }
  const header: Record<string, string> =
    plan.keyHeader === 'authorization' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  const policy = chain(
    allowHosts([plan.hostRule], { methods: ['POST'], name: 'model-api' }),
    injectHeaders([plan.hostRule], header, { name: 'model-api-key' }),
  );
  const egress = createEgressClient({
    policy,
    guard: {
      mode: plan.guardMode,
      ...(options.protectedPorts?.length ? { protectedPorts: options.protectedPorts } : {}),
    },
    ...(options.audit ? { audit: options.audit } : {}),
  });
  const providerOptions = { baseUrl: plan.baseUrl, model: plan.model, egress: egress as unknown as ProviderHttpClient };
  const provider =
    plan.kind === 'anthropic' ? createAnthropicProvider(providerOptions) : createOpenAIProvider(providerOptions);
  return {
    provider,
    describe: `${provider.label} (key from $${plan.keyEnv}, injected at egress)`,
    close: () => egress.close(),
  };
}
