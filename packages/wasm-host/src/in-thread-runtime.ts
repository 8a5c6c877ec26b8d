import type { CapabilitySet } from '@trust/core';
import { wasmError } from './errors.js';
import type { ImportPlan } from './import-plan.js';
import { hasJspi } from './jspi.js';
import { createNetworkBroker, type BrokerOptions } from './net-broker.js';
import { instantiateJspiRuntime, instantiateRuntime, type CallOutcome } from './plugin-runtime.js';

/**
 * Whether a plugin with these capabilities may run on the host's own thread. Without network it
 * always may. With `http` it may only where JSPI exists (Node >= 24): its requests then suspend the
 * guest and await egress on this thread's event loop. Without JSPI a guest's request would have to
 * block this thread while egress, which runs on it, answers: refused. Raw sockets (`tcp`, `udp`,
 * `network`, `sockets`) always need a worker. Returns the refusal as an error, or undefined.
 */
export function inThreadRefusal(id: string, caps: CapabilitySet, jspi = hasJspi()) {
  if (caps.egressTier() === 'none') return undefined;
  const sockets = (['tcp', 'udp', 'network', 'sockets'] as const).filter((c) => caps.has(c));
  if (sockets.length > 0)
    return wasmError(
      'WASM_ISOLATION_REQUIRED',
      `plugin ${id} has socket capabilities (${sockets.join(', ')}), which need worker isolation`,
      { hint: 'sockets are brokered through a worker bridge; load it with isolation: "worker"' },
    );
  if (!jspi)
    return wasmError('WASM_ISOLATION_REQUIRED', `plugin ${id} has network capabilities, which need worker isolation`, {
      hint:
        'the guest blocks its thread on every request while egress runs on the main thread; load it with ' +
        'isolation: "worker", or run on Node 24 or newer (WebAssembly JSPI), where in-thread plugins may use http',
    });
  return undefined;
}

/** A plugin instance on the host's thread, as plugin-host drives it. */
export interface InThreadRuntime {
  /** Present when calls complete synchronously (no network): no queue is needed. */
  readonly callSync?: (name: string, args: unknown[]) => CallOutcome;
  /** Present with JSPI and `http`: a call settles when the guest returns; one at a time. */
  readonly callAsync?: (name: string, args: unknown[]) => Promise<CallOutcome>;
  close(): void;
}

/**
 * Instantiates a plugin on the host's thread. With `broker` (only reached after `inThreadRefusal`
 * allowed it, so JSPI is there), the glue must be JSPI glue and the guest's HTTP goes straight to
 * a network broker for this plugin; otherwise the ordinary synchronous glue runs.
 */
export async function startInThreadRuntime(o: {
  glueUrl: string;
  modules: ReadonlyMap<string, WebAssembly.Module>;
  plan: ImportPlan;
  onOutput: (stream: 'stdout' | 'stderr', data: Uint8Array) => void;
  maxMemoryBytes?: number;
  maxHttpRequestBytes?: number;
  broker?: BrokerOptions;
}): Promise<InThreadRuntime> {
  const base = {
    glueUrl: o.glueUrl,
    modules: o.modules,
    plan: o.plan,
    onOutput: o.onOutput,
    ...(o.maxMemoryBytes !== undefined ? { maxMemoryBytes: o.maxMemoryBytes } : {}),
    ...(o.maxHttpRequestBytes !== undefined ? { maxHttpRequestBytes: o.maxHttpRequestBytes } : {}),
  };
  if (!o.broker) {
    const rt = await instantiateRuntime(base);
    return { callSync: (name, args) => rt.call(name, args), close: () => rt.close() };
  }
  const broker = createNetworkBroker(o.broker);
  try {
    const rt = await instantiateJspiRuntime({
      ...base,
      // as through the worker bridge: a broker failure reaches the guest as an answer, never a throw
      httpCall: (op, payload) =>
        broker.handle(op, payload).catch((e: unknown) => ({ bridgeError: String((e as Error)?.message ?? e) })),
    });
    return {
      callAsync: (name, args) => rt.call(name, args),
      close() {
        rt.close();
        broker.close();
      },
    };
  } catch (e) {
    broker.close();
    throw e;
  }
}
