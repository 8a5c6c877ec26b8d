import { RELEASE_SYNC, newQuickJSWASMModuleFromVariant, newVariant, shouldInterruptAfterDeadline } from 'quickjs-emscripten';
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten';
import { TrustError } from '@trust/core';
import { buildGuestSource } from './guest-prelude.js';
import type { GuestEntry } from './guest-prelude.js';
import { createTypeStripper } from './type-strip.js';
import type { CodeLanguage, TypeStripper } from './type-strip.js';

/** Hard ceiling on one execution's wall clock, whatever the config says. */
export const CODE_TIMEOUT_CEILING_MS = 300_000;

/** The host side of the `adf` bridge: one call per `adf.<method>(args)` in the guest. */
export type BridgeHandler = (method: string, args: unknown) => Promise<unknown>;

/** Options of one execution. */
export interface CodeRunOptions {
  /** Agent source. Runs as the body of an async function, so `return` and `await` work. */
  readonly code: string;
  /**
   * `typescript`: types are stripped on the host first (no type checking), then the result runs
   * exactly like JavaScript. A TypeScript syntax error fails the run with `CODE_SYNTAX`.
   * Default `javascript`.
   */
  readonly language?: CodeLanguage;
  /** File name used in messages (e.g. the lambda's path). */
  readonly fileName?: string;
  /** Called for every `adf.*` call; its result is JSON-copied into the guest. */
  readonly bridge: BridgeHandler;
  /** Wall-clock limit; clamped to 1..300000 ms. Default 10000. */
  readonly timeoutMs?: number;
  /** Memory limit of the isolate in bytes. Default 64 MiB. */
  readonly memoryBytes?: number;
  /** Script body (default) or a named function with JSON arguments (lambdas). */
  readonly entry?: GuestEntry;
  /** Aborts the execution like a timeout. */
  readonly signal?: AbortSignal;
}

/** Outcome of one execution. Values are JSON copies: nothing is shared with the isolate. */
export type CodeResult =
  | { readonly ok: true; readonly value: unknown; readonly logs: readonly string[] }
  | { readonly ok: false; readonly code: CodeErrorCode; readonly name: string; readonly message: string; readonly logs: readonly string[] };

/** Stable error codes of a failed execution. */
export type CodeErrorCode = 'CODE_TIMEOUT' | 'CODE_MEMORY_LIMIT' | 'CODE_STACK_OVERFLOW' | 'CODE_ABORTED' | 'CODE_SYNTAX' | 'CODE_ERROR';

/** A factory of fresh QuickJS isolates. */
export interface CodeSandbox {
  /** Runs code in a brand-new runtime and context, disposed afterwards. */
  run(options: CodeRunOptions): Promise<CodeResult>;
}

/** Options of {@link createCodeSandbox}. */
export interface CodeSandboxOptions {
  /**
   * Maximum linear memory of the WebAssembly instance shared by this sandbox's executions
   * (default 256 MiB). This is the hard backstop: QuickJS's own limit does not count large
   * buffers in this build, so a guest allocating big strings stops here at the latest.
   */
  readonly moduleMemoryBytes?: number;
  /** Maximum bridge calls per execution (default 10000). */
  readonly maxBridgeCalls?: number;
  /** Maximum bytes of one bridge argument or result, and of the final value (default 8 MiB). */
  readonly maxMessageBytes?: number;
  /** Maximum bytes of captured console output (default 64 KiB). */
  readonly maxLogBytes?: number;
  /**
   * Guest stack size in bytes (default 128 KiB, about 650 nested calls). QuickJS's interpreter
   * recurses on the host's native stack, so a larger value can overflow the host stack first.
   */
  readonly stackBytes?: number;
  /** Strips TypeScript; default a fresh {@link createTypeStripper} (its cache is this sandbox's own). */
  readonly typeStripper?: TypeStripper;
}

/**
 * Creates a sandbox for agent code: QuickJS compiled to WebAssembly. Each run gets a fresh
 * runtime (own heap, own memory limit, own interrupt deadline) and a fresh context, so nothing
 * persists and one agent's code cannot see another's. The only outlet is the `adf` bridge.
 *
 * @example
 * ```ts
 * const sandbox = createCodeSandbox();
 * const r = await sandbox.run({ code: 'return (await adf.fs_read({ path: "a.txt" })).content', bridge: (m, a) => gate.call(m, a, { origin: 'code' }) });
 * ```
 */
export function createCodeSandbox(options: CodeSandboxOptions = {}): CodeSandbox {
  const maxCalls = options.maxBridgeCalls ?? 10_000;
  const maxBytes = options.maxMessageBytes ?? 8 * 1024 * 1024;
  const maxLogBytes = options.maxLogBytes ?? 64 * 1024;
  const stackBytes = options.stackBytes ?? 128 * 1024;
  const stripper = options.typeStripper ?? createTypeStripper();
  const pages = Math.max(512, Math.ceil((options.moduleMemoryBytes ?? 256 * 1024 * 1024) / 65536));
  // One WebAssembly instance serves many executions (each with its own QuickJS runtime). After a
  // resource failure the instance is dropped, never reused: QuickJS may be left inconsistent.
  let engine: Promise<Engine> | undefined;
  const load = (): Promise<Engine> => {
    const memory = new wasmGlobal.Memory({ initial: 256, maximum: pages });
    return newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory as never })).then((mod) => ({ mod, memory, poisoned: false }));
  };
  return {
    async run(input) {
      let run = input;
      if (input.language === 'typescript') {
        const stripped = stripper.strip(input.code, input.fileName ?? 'agent-code.ts');
        if (!stripped.ok) return { ok: false, code: 'CODE_SYNTAX', name: 'SyntaxError', message: `${stripped.message} (types are stripped, not checked)`, logs: [] };
        run = { ...input, code: stripped.code };
      }
      engine ??= load();
      let current = await engine;
      if (current.poisoned) {
        engine = load();
        current = await engine;
      }
      return execute(current, run, { maxCalls, maxBytes, maxLogBytes, stackBytes });
    },
  };
}

interface WasmMemory { readonly buffer: ArrayBuffer }
// The project's TypeScript lib set has no DOM/WebAssembly types; this is the one constructor used.
const wasmGlobal = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => WasmMemory } }).WebAssembly;
interface Engine { readonly mod: QuickJSWASMModule; readonly memory: WasmMemory; poisoned: boolean }

interface Limits { maxCalls: number; maxBytes: number; maxLogBytes: number; stackBytes: number }

function clampTimeout(ms: number | undefined): number {
  const v = ms === undefined || !Number.isFinite(ms) ? 10_000 : Math.floor(ms);
  return Math.min(Math.max(v, 1), CODE_TIMEOUT_CEILING_MS);
}

async function execute(engine: Engine, run: CodeRunOptions, limits: Limits): Promise<CodeResult> {
  const mod = engine.mod;
  const timeoutMs = clampTimeout(run.timeoutMs);
  const deadline = Date.now() + timeoutMs;
  const logs: string[] = [];
  let logBytes = 0;
  let calls = 0;
  let aborted = false;
  const pending = new Set<QuickJSDeferredPromise>();
  const memoryBytes = run.memoryBytes ?? 64 * 1024 * 1024;
  const startBytes = engine.memory.buffer.byteLength;
  let overMemory = false;
  const runtime = mod.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const pastDeadline = shouldInterruptAfterDeadline(deadline);
  runtime.setInterruptHandler((rt) => {
    if (engine.memory.buffer.byteLength - startBytes > memoryBytes) overMemory = true;
    return aborted || overMemory || pastDeadline(rt);
  });
  const vm: QuickJSContext = runtime.newContext();
  let settle!: (r: CodeResult) => void;
  const done = new Promise<CodeResult>((resolve) => { settle = resolve; });
  let finished = false;
  const finish = (r: CodeResult) => { if (!finished) { finished = true; settle(r); } };
  const fail = (code: CodeErrorCode, name: string, message: string) => finish({ ok: false, code, name, message, logs });
  const pump = () => {
    if (finished) return;
    let r: ReturnType<typeof runtime.executePendingJobs>;
    try { r = runtime.executePendingJobs(); } catch (e) { hostFault(e); return; }
    if (r.error) {
      const err = dumpError(vm, r.error);
      r.error.dispose();
      classifyAndFail(err.name, err.message);
    }
  };
  // A trap inside the WebAssembly instance (host stack exhausted by deep guest recursion, or an
  // engine abort) leaves QuickJS in an unknown state: fail the run and retire the instance.
  const hostFault = (e: unknown) => {
    engine.poisoned = true;
    if (e instanceof RangeError) return fail('CODE_STACK_OVERFLOW', 'RangeError', 'maximum call stack size exceeded');
    return fail('CODE_ERROR', 'InternalError', `sandbox engine fault: ${(e as Error)?.message ?? String(e)}`);
  };
  const classifyAndFail = (name: string, message: string) => {
    if (aborted) return fail('CODE_ABORTED', 'AbortError', 'execution aborted');
    if (overMemory || /out of memory|string too long|array too long/i.test(message)) return fail('CODE_MEMORY_LIMIT', 'RangeError', 'execution exceeded its memory limit');
    if (Date.now() > deadline || /interrupted/i.test(message)) return fail('CODE_TIMEOUT', 'TimeoutError', `execution exceeded ${timeoutMs} ms`);
    if (/stack (size|overflow)|call stack/i.test(message)) return fail('CODE_STACK_OVERFLOW', 'RangeError', 'maximum call stack size exceeded');
    if (name === 'SyntaxError') return fail('CODE_SYNTAX', name, message);
    return fail('CODE_ERROR', name, message);
  };

  const callFn = vm.newFunction('call', (methodH, argsH) => {
    const method = vm.typeof(methodH) === 'string' ? vm.getString(methodH) : '';
    const argsText = vm.typeof(argsH) === 'string' ? vm.getString(argsH) : 'null';
    const deferred = vm.newPromise();
    pending.add(deferred);
    const reject = (name: string, message: string, code: string) => {
      if (finished || !pending.has(deferred)) return;
      const e = vm.newError({ name, message });
      const c = vm.newString(code);
      vm.setProp(e, 'code', c);
      c.dispose();
      deferred.reject(e);
      e.dispose();
      pending.delete(deferred);
      deferred.dispose();
      pump();
    };
    calls += 1;
    if (calls > limits.maxCalls) queueMicrotask(() => reject('AdfError', `more than ${limits.maxCalls} bridge calls in one execution`, 'CODE_TOO_MANY_CALLS'));
    else if (argsText.length > limits.maxBytes) queueMicrotask(() => reject('AdfError', `bridge arguments exceed ${limits.maxBytes} bytes`, 'CODE_MESSAGE_TOO_LARGE'));
    else {
      let args: unknown;
      try { args = JSON.parse(argsText); } catch { args = null; }
      Promise.resolve()
        .then(() => run.bridge(method, args))
        .then((value) => {
          if (finished || !pending.has(deferred)) return;
          const text = JSON.stringify(value === undefined ? null : value) ?? 'null';
          if (text.length > limits.maxBytes) return reject('AdfError', `bridge result exceeds ${limits.maxBytes} bytes`, 'CODE_MESSAGE_TOO_LARGE');
          const h = vm.newString(text);
          deferred.resolve(h);
          h.dispose();
          pending.delete(deferred);
          deferred.dispose();
          pump();
        }, (err: unknown) => {
          const e = err as { name?: unknown; message?: unknown; code?: unknown };
          reject(typeof e?.name === 'string' ? e.name : 'AdfError', typeof e?.message === 'string' ? e.message : String(err), typeof e?.code === 'string' ? e.code : 'ADF_ERROR');
        });
    }
    return deferred.handle;
  });
  const settleFn = vm.newFunction('settle', (okH, aH, bH) => {
    const ok = vm.dump(okH) === true;
    const a = vm.typeof(aH) === 'string' ? vm.getString(aH) : '';
    const b = vm.typeof(bH) === 'string' ? vm.getString(bH) : '';
    if (ok) {
      if (a.length > limits.maxBytes) fail('CODE_ERROR', 'RangeError', `result exceeds ${limits.maxBytes} bytes`);
      else finish({ ok: true, value: JSON.parse(a), logs });
    } else classifyAndFail(a, b);
  });
  const logFn = vm.newFunction('log', (levelH, textH) => {
    const level = vm.typeof(levelH) === 'string' ? vm.getString(levelH) : 'log';
    const text = vm.typeof(textH) === 'string' ? vm.getString(textH) : '';
    if (logBytes >= limits.maxLogBytes) return;
    const line = `[${level}] ${text}`.slice(0, limits.maxLogBytes - logBytes);
    logBytes += line.length;
    logs.push(line);
  });

  const timer = setTimeout(() => { pump(); fail('CODE_TIMEOUT', 'TimeoutError', `execution exceeded ${timeoutMs} ms`); }, timeoutMs + 5);
  const onAbort = () => { aborted = true; fail('CODE_ABORTED', 'AbortError', 'execution aborted'); };
  if (run.signal?.aborted) onAbort();
  run.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (!finished) {
      let source: string;
      try { source = buildGuestSource(run.code, run.entry ?? { kind: 'script' }); } catch (e) { throw new TrustError('CODE_ENTRY_INVALID', (e as Error).message); }
      let compiled: ReturnType<typeof vm.evalCode> | undefined;
      try { compiled = vm.evalCode(source, 'agent-code.js'); } catch (e) { hostFault(e); }
      if (!compiled) { /* host fault already recorded */ }
      else if (compiled.error) {
        const err = dumpError(vm, compiled.error);
        compiled.error.dispose();
        classifyAndFail(err.name, err.message);
      } else {
        let started: ReturnType<typeof vm.callFunction> | undefined;
        try { started = vm.callFunction(compiled.value, vm.undefined, callFn, settleFn, logFn); } catch (e) { hostFault(e); }
        compiled.value.dispose();
        if (!started) { /* host fault already recorded */ }
        else if (started.error) {
          const err = dumpError(vm, started.error);
          started.error.dispose();
          classifyAndFail(err.name, err.message);
        } else {
          started.value.dispose();
          pump();
        }
      }
    }
    const result = await done;
    if (!result.ok && (result.code === 'CODE_TIMEOUT' || result.code === 'CODE_MEMORY_LIMIT' || result.code === 'CODE_STACK_OVERFLOW' || result.code === 'CODE_ABORTED')) engine.poisoned = true;
    return result;
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener('abort', onAbort);
    for (const d of pending) d.dispose();
    pending.clear();
    if (engine.poisoned) {
      // Never free a runtime after a resource failure: freeing can trip QuickJS's own asserts.
      // The whole WebAssembly instance is dropped instead and reclaimed by the garbage collector.
    } else {
      try {
        callFn.dispose();
        settleFn.dispose();
        logFn.dispose();
        vm.dispose();
        runtime.dispose();
      } catch {
        engine.poisoned = true;
      }
    }
  }
}

function dumpError(vm: QuickJSContext, h: QuickJSHandle): { name: string; message: string } {
  try {
    const d = vm.dump(h) as unknown;
    if (d && typeof d === 'object') {
      const o = d as { name?: unknown; message?: unknown };
      return { name: typeof o.name === 'string' ? o.name : 'Error', message: typeof o.message === 'string' ? o.message : JSON.stringify(d) };
    }
    return { name: 'Error', message: String(d) };
  } catch {
    return { name: 'Error', message: 'unreadable guest error' };
  }
}

