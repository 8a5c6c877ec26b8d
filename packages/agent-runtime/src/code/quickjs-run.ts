import { RELEASE_SYNC, newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten';
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten';
import { buildGuestSource } from './guest-prelude.js';
import { createHostStd } from './stdlib-host.js';
import type { CodeErrorCode, RunRequest, WorkerLimits, WorkerResult } from './worker-protocol.js';

// Runs inside a code worker thread: one QuickJS execution. The host (main thread) holds the
// deadline by terminating the worker; the interrupt handler here is the polite first stop that
// keeps the logs.

interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
// The project's TypeScript lib set has no DOM/WebAssembly types; this is the one constructor used.
const wasmGlobal = (
  globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => WasmMemory } }
).WebAssembly;

/** Linear memory the QuickJS module starts with (and which a run's limit comes on top of). */
export const ENGINE_INITIAL_BYTES = 16 * 1024 * 1024;

/** One WebAssembly instance of QuickJS; many runtimes (executions) live in it. */
export interface Engine {
  readonly mod: QuickJSWASMModule;
  readonly memory: WasmMemory;
  readonly maxBytes: number;
  poisoned: boolean;
}

/**
 * Loads QuickJS into a linear memory that can never grow past `memoryBytes` on top of its
 * initial size: whatever QuickJS's own accounting misses, the instance cannot take more.
 */
export async function loadEngine(memoryBytes: number): Promise<Engine> {
  const maximum = Math.ceil((ENGINE_INITIAL_BYTES + memoryBytes) / 65536);
  const memory = new wasmGlobal.Memory({ initial: ENGINE_INITIAL_BYTES / 65536, maximum });
  const mod = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory as never }));
  return { mod, memory, maxBytes: maximum * 65536, poisoned: false };
}

/**
 * A QuickJS runtime and context no code has run in yet. A worker makes the next run's isolate
 * while it is idle; it is used by exactly one run and then disposed, never reused.
 */
export interface Isolate {
  readonly engine: Engine;
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
}

/** Creates a fresh isolate in `engine` (limits and the interrupt handler are set by the run that takes it). */
export function newIsolate(engine: Engine): Isolate {
  const runtime = engine.mod.newRuntime();
  try {
    return { engine, runtime, vm: runtime.newContext() };
  } catch (e) {
    runtime.dispose();
    throw e;
  }
}

/** How {@link runGuest} gets and gives back its isolate (default: made now, disposed before it returns). */
export interface IsolateUse {
  /** A fresh isolate of the same engine, made ahead of the run. */
  readonly isolate?: Isolate;
}

/** One execution as the worker sees it. */
export interface GuestRun
  extends Pick<RunRequest, 'code' | 'fn' | 'argsText' | 'deadline' | 'timeoutMs' | 'memoryBytes'> {
  /** True once the host asked this run to stop (shared memory; read while the guest spins). */
  readonly stopRequested: () => boolean;
  /** Sends `adf.<method>(argsText)` to the host; resolves with the result's JSON text. */
  readonly call: (method: string, argsText: string) => Promise<string>;
}

/** Runs one execution in `engine`; marks the engine poisoned after a resource failure. */
export async function runGuest(
  engine: Engine,
  run: GuestRun,
  limits: WorkerLimits,
  use: IsolateUse = {},
): Promise<{ result: WorkerResult; logs: string[] }> {
  const logs: string[] = [];
  let logBytes = 0;
  let calls = 0;
  let overMemory = false;
  const pending = new Set<QuickJSDeferredPromise>();
  const startBytes = engine.memory.buffer.byteLength;
  const { runtime, vm } = use.isolate?.engine === engine ? use.isolate : newIsolate(engine);
  runtime.setMemoryLimit(run.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => {
    if (engine.memory.buffer.byteLength - startBytes > run.memoryBytes) overMemory = true;
    return overMemory || run.stopRequested() || Date.now() > run.deadline;
  });
  let settle!: (r: WorkerResult) => void;
  const done = new Promise<WorkerResult>((resolve) => {
    settle = resolve;
  });
  let finished = false;
  const finish = (r: WorkerResult) => {
    if (!finished) {
      finished = true;
      settle(r);
    }
  };
  const fail = (code: CodeErrorCode, name: string, message: string) => finish({ ok: false, code, name, message });
  const hostFault = (e: unknown) => {
    // A trap inside the instance (native stack exhausted, engine abort, linear memory exhausted)
    // leaves QuickJS in an unknown state: fail the run and retire the instance.
    engine.poisoned = true;
    const msg = (e as Error)?.message ?? String(e);
    if (e instanceof RangeError && /stack/i.test(msg))
      return fail('CODE_STACK_OVERFLOW', 'RangeError', 'maximum call stack size exceeded');
    if (/memory|alloc/i.test(msg))
      return fail('CODE_MEMORY_LIMIT', 'RangeError', 'execution exceeded its memory limit');
    return fail('CODE_ERROR', 'InternalError', `sandbox engine fault: ${msg}`);
  };
  const classifyAndFail = (name: string, message: string) => {
    if (run.stopRequested()) return fail('CODE_ABORTED', 'AbortError', 'execution aborted');
    if (overMemory || /out of memory|string too long|array too long/i.test(message))
      return fail('CODE_MEMORY_LIMIT', 'RangeError', 'execution exceeded its memory limit');
    if (Date.now() > run.deadline || /interrupted/i.test(message))
      return fail('CODE_TIMEOUT', 'TimeoutError', `execution exceeded ${run.timeoutMs} ms`);
    if (/stack (size|overflow)|call stack/i.test(message))
      return fail('CODE_STACK_OVERFLOW', 'RangeError', 'maximum call stack size exceeded');
    if (name === 'SyntaxError') return fail('CODE_SYNTAX', name, message);
    return fail('CODE_ERROR', name, message);
  };
  const pump = () => {
    if (finished) return;
    let r: ReturnType<typeof runtime.executePendingJobs>;
    try {
      r = runtime.executePendingJobs();
    } catch (e) {
      hostFault(e);
      return;
    }
    if (r.error) {
      const err = dumpError(vm, r.error);
      r.error.dispose();
      classifyAndFail(err.name, err.message);
    }
  };

  // Bridge calls beyond maxInflight wait here, so a flood reaches the host a few at a time.
  // Their arguments in flight are capped in bytes too (one message's cap, or one message).
  const queue: Array<{ bytes: number; send: () => void }> = [];
  let inflight = 0;
  let inflightBytes = 0;
  const startNext = () => {
    while (
      queue.length > 0 &&
      inflight < limits.maxInflight &&
      (inflight === 0 || inflightBytes + queue[0]!.bytes <= limits.maxBytes)
    ) {
      const next = queue.shift()!;
      inflight++;
      inflightBytes += next.bytes;
      next.send();
    }
  };
  const callFn = vm.newFunction('call', (methodH, argsH) => {
    const method = vm.typeof(methodH) === 'string' ? vm.getString(methodH) : '';
    const argsText = vm.typeof(argsH) === 'string' ? vm.getString(argsH) : 'null';
    const deferred = vm.newPromise();
    pending.add(deferred);
    const settleCall = (ok: boolean, text: string, name = '', message = '', code = '') => {
      if (finished || !pending.has(deferred)) return;
      if (ok) {
        const h = vm.newString(text);
        deferred.resolve(h);
        h.dispose();
      } else {
        const e = vm.newError({ name, message });
        const c = vm.newString(code);
        vm.setProp(e, 'code', c);
        c.dispose();
        deferred.reject(e);
        e.dispose();
      }
      pending.delete(deferred);
      deferred.dispose();
      pump();
    };
    calls += 1;
    if (calls > limits.maxCalls)
      queueMicrotask(() =>
        settleCall(
          false,
          '',
          'AdfError',
          `more than ${limits.maxCalls} bridge calls in one execution`,
          'CODE_TOO_MANY_CALLS',
        ),
      );
    else if (argsText.length > limits.maxBytes)
      queueMicrotask(() =>
        settleCall(false, '', 'AdfError', `bridge arguments exceed ${limits.maxBytes} bytes`, 'CODE_MESSAGE_TOO_LARGE'),
      );
    else {
      const bytes = argsText.length;
      const done = () => {
        inflight--;
        inflightBytes -= bytes;
        startNext();
      };
      queue.push({
        bytes,
        send: () =>
          run.call(method, argsText).then(
            (text) => {
              done();
              settleCall(true, text);
            },
            (err: { name?: string; message?: string; code?: string }) => {
              done();
              settleCall(
                false,
                '',
                err.name ?? 'AdfError',
                err.message ?? 'bridge call failed',
                err.code ?? 'ADF_ERROR',
              );
            },
          ),
      });
      startNext();
    }
    return deferred.handle;
  });
  const settleFn = vm.newFunction('settle', (okH, aH, bH) => {
    const ok = vm.dump(okH) === true;
    const a = vm.typeof(aH) === 'string' ? vm.getString(aH) : '';
    const b = vm.typeof(bH) === 'string' ? vm.getString(bH) : '';
    if (ok) {
      if (a.length > limits.maxBytes)
        fail('CODE_MESSAGE_TOO_LARGE', 'RangeError', `result exceeds ${limits.maxBytes} bytes`);
      // A value produced after the deadline (e.g. once a nested run used up the time) is late.
      else if (Date.now() > run.deadline)
        fail('CODE_TIMEOUT', 'TimeoutError', `execution exceeded ${run.timeoutMs} ms`);
      else finish({ ok: true, valueText: a });
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

  // The standard library's host half; its timer waits wake the guest's pending jobs.
  const hostStd = createHostStd(vm, () => pump());

  const release = () => {
    // Never free a runtime after a resource failure: freeing can trip QuickJS's own asserts.
    // The worker (and the whole instance) is retired instead.
    hostStd.cancel(); // no timer of this run may fire after it, whatever happens below
    if (engine.poisoned) return;
    try {
      callFn.dispose();
      settleFn.dispose();
      logFn.dispose();
      hostStd.dispose();
      vm.dispose();
      runtime.dispose();
    } catch {
      engine.poisoned = true;
    }
  };

  // While the guest waits on the bridge no interrupt fires: this timer ends the wait.
  const timer = setTimeout(
    () => {
      pump();
      fail('CODE_TIMEOUT', 'TimeoutError', `execution exceeded ${run.timeoutMs} ms`);
    },
    Math.max(0, run.deadline - Date.now()) + 5,
  );
  try {
    const source = buildGuestSource(
      run.code,
      run.fn === undefined ? { kind: 'script' } : { kind: 'function', name: run.fn, argsText: run.argsText ?? 'null' },
    );
    let compiled: ReturnType<typeof vm.evalCode> | undefined;
    try {
      compiled = vm.evalCode(source, 'agent-code.js');
    } catch (e) {
      hostFault(e);
    }
    if (compiled?.error) {
      const err = dumpError(vm, compiled.error);
      compiled.error.dispose();
      classifyAndFail(err.name, err.message);
    } else if (compiled) {
      let started: ReturnType<typeof vm.callFunction> | undefined;
      try {
        started = vm.callFunction(compiled.value, vm.undefined, callFn, settleFn, logFn, hostStd.std, hostStd.sleep);
      } catch (e) {
        hostFault(e);
      }
      compiled.value.dispose();
      if (started?.error) {
        const err = dumpError(vm, started.error);
        started.error.dispose();
        classifyAndFail(err.name, err.message);
      } else if (started) {
        started.value.dispose();
        pump();
      }
    }
    const result = await done;
    if (
      !result.ok &&
      ['CODE_TIMEOUT', 'CODE_MEMORY_LIMIT', 'CODE_STACK_OVERFLOW', 'CODE_ABORTED'].includes(result.code)
    )
      engine.poisoned = true;
    return { result, logs };
  } finally {
    clearTimeout(timer);
    for (const d of pending) d.dispose();
    pending.clear();
    queue.length = 0;
    release();
  }
}

function dumpError(vm: QuickJSContext, h: QuickJSHandle): { name: string; message: string } {
  try {
    const d = vm.dump(h) as unknown;
    if (d && typeof d === 'object') {
      const o = d as { name?: unknown; message?: unknown };
      return {
        name: typeof o.name === 'string' ? o.name : 'Error',
        message: typeof o.message === 'string' ? o.message : JSON.stringify(d),
      };
    }
    return { name: 'Error', message: String(d) };
  } catch {
    return { name: 'Error', message: 'unreadable guest error' };
  }
}
