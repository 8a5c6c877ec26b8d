import { buildWasiImports, GuestExit } from './wasi-imports.js';
import type { ImportPlan } from './import-plan.js';
import type { SyncCall } from './sync-bridge.js';

/** How a guest call ended when it did not return normally. Crosses the worker boundary as data. */
export interface CallFailure {
  readonly kind: 'trap' | 'exit' | 'guest' | 'memory' | 'unknown-export';
  readonly message: string;
  readonly exitCode?: number;
  /** For `guest`: the `err` payload of a `result` export. */
  readonly payload?: unknown;
}

export type CallOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly failure: CallFailure; readonly fatal: boolean };

/** One instantiated component: runs on the main thread (in-thread mode) or inside a worker. */
export interface PluginRuntime {
  call(name: string, args: readonly unknown[]): CallOutcome;
  /** Total bytes of all linear memories. */
  memoryBytes(): number;
  /** Closes the host descriptors the guest opened (the instance must not be called again). */
  close(): void;
}

/** A component instantiated with JSPI glue (see jspi.ts): a call settles when the guest returns. */
export interface AsyncPluginRuntime {
  call(name: string, args: readonly unknown[]): Promise<CallOutcome>;
  memoryBytes(): number;
  close(): void;
}

/** What instantiating a component takes. */
export interface RuntimeInput {
  glueUrl: string;
  modules: ReadonlyMap<string, WebAssembly.Module>;
  plan: ImportPlan;
  onOutput: (stream: 'stdout' | 'stderr', data: Uint8Array) => void;
  bridge?: SyncCall;
  maxMemoryBytes?: number;
  /** Cap on one guest HTTP request body (default 16 MiB). */
  maxHttpRequestBytes?: number;
}

const camel = (s: string): string => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** An own property of an export object (a plain object), or undefined. */
function ownExport(target: unknown, key: string): unknown {
  if (target === null || typeof target !== 'object' || !Object.hasOwn(target, key)) return undefined;
  return (target as Record<string, unknown>)[key];
}

/**
 * Instantiates transpiled glue with a fresh per-instance import object built from `plan`.
 * Memories are captured through jco's `instantiateCore` hook so the host can enforce a ceiling.
 */
export async function instantiateRuntime(input: RuntimeInput): Promise<PluginRuntime> {
  const inst = await instantiate(input, undefined);
  return {
    memoryBytes: inst.memoryBytes,
    close: inst.close,
    call(name, args) {
      const fn = inst.enter(name);
      if (typeof fn !== 'function') return fn;
      try {
        return inst.settle(fn(...args));
      } catch (e) {
        return classify(e);
      }
    },
  };
}

/**
 * Instantiates JSPI glue (only where `hasJspi()` holds): the guest's HTTP requests go to
 * `httpCall`, which answers with a promise, and the guest is suspended while it is pending. The
 * caller runs one call at a time per instance.
 */
export async function instantiateJspiRuntime(
  input: RuntimeInput & { httpCall: (op: string, payload: unknown) => Promise<unknown> },
): Promise<AsyncPluginRuntime> {
  const inst = await instantiate(input, input.httpCall);
  return {
    memoryBytes: inst.memoryBytes,
    close: inst.close,
    async call(name, args) {
      const fn = inst.enter(name);
      if (typeof fn !== 'function') return fn;
      try {
        return inst.settle(await fn(...args));
      } catch (e) {
        return classify(e);
      }
    },
  };
}

async function instantiate(
  input: RuntimeInput,
  httpCall: ((op: string, payload: unknown) => Promise<unknown>) | undefined,
): Promise<{
  /** The export to call, or the outcome that refuses the call. */
  enter(name: string): ((...a: unknown[]) => unknown) | CallOutcome;
  /** The outcome of a call that returned `value` (the memory ceiling applies). */
  settle(value: unknown): CallOutcome;
  memoryBytes(): number;
  close(): void;
}> {
  const glue = (await import(input.glueUrl)) as {
    instantiate: (
      get: (n: string) => WebAssembly.Module,
      imports: unknown,
      core: (m: WebAssembly.Module, i: WebAssembly.Imports) => Promise<WebAssembly.Instance>,
    ) => Promise<Record<string, unknown>>;
  };
  const { imports, close } = buildWasiImports(input.plan, {
    onOutput: input.onOutput,
    ...(input.bridge ? { bridge: input.bridge } : {}),
    ...(httpCall ? { httpCall } : {}),
    ...(input.maxHttpRequestBytes !== undefined ? { maxRequestBodyBytes: input.maxHttpRequestBytes } : {}),
  });
  const memories: WebAssembly.Memory[] = [];
  const exports = await glue.instantiate(
    (n) => {
      const m = input.modules.get(n);
      if (!m) throw new Error(`core module ${n} missing`);
      return m;
    },
    imports,
    async (module, imp) => {
      const instance = await WebAssembly.instantiate(module, imp);
      for (const v of Object.values(instance.exports)) if (v instanceof WebAssembly.Memory) memories.push(v);
      return instance;
    },
  );
  const memoryBytes = () => memories.reduce((n, m) => n + m.buffer.byteLength, 0);
  let closed = false;
  const fns = new Map<string, (...a: unknown[]) => unknown>();
  const lookup = (name: string) => {
    let fn = fns.get(name);
    if (fn) return fn;
    let target: unknown = exports;
    // Only the component's own exports: each step is an own property of an export object, never an
    // inherited one (`constructor`, `__proto__`, `toString`) and never a property of a function
    // (`add.constructor` would be the Function constructor, able to build code from the caller's text).
    for (const part of name.split('.')) target = ownExport(target, camel(part)) ?? ownExport(target, part);
    if (typeof target !== 'function') return undefined;
    fn = target as (...a: unknown[]) => unknown;
    fns.set(name, fn);
    return fn;
  };
  return {
    memoryBytes,
    close() {
      closed = true;
      close();
    },
    enter(name) {
      if (closed) return { ok: false, fatal: true, failure: { kind: 'trap', message: 'the plugin was disposed' } };
      return (
        lookup(name) ?? {
          ok: false,
          fatal: false,
          failure: { kind: 'unknown-export', message: `the plugin has no export ${JSON.stringify(name)}` },
        }
      );
    },
    settle(value) {
      if (input.maxMemoryBytes !== undefined && memoryBytes() > input.maxMemoryBytes) {
        return {
          ok: false,
          fatal: true,
          failure: {
            kind: 'memory',
            message: `linear memory grew to ${memoryBytes()} bytes, above the ceiling of ${input.maxMemoryBytes}`,
          },
        };
      }
      return { ok: true, value };
    },
  };
}

function classify(e: unknown): CallOutcome {
  if (e instanceof GuestExit)
    return { ok: false, fatal: true, failure: { kind: 'exit', message: e.message, exitCode: e.exitCode } };
  if (e && typeof e === 'object' && 'payload' in e && (e as unknown as Error).name === 'ComponentError') {
    return {
      ok: false,
      fatal: false,
      failure: {
        kind: 'guest',
        message: `the plugin returned an error: ${safe((e as { payload: unknown }).payload)}`,
        payload: (e as { payload: unknown }).payload,
      },
    };
  }
  // Any other exception out of a guest (a wasm trap, stack overflow, a host import throwing)
  // leaves the instance in an unknown state: it is dropped.
  const message = e instanceof Error ? `${e.name}: ${e.message}` : safe(e);
  return { ok: false, fatal: true, failure: { kind: 'trap', message } };
}

function safe(v: unknown): string {
  try {
    return typeof v === 'string'
      ? v
      : (JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v));
  } catch {
    return String(v);
  }
}
