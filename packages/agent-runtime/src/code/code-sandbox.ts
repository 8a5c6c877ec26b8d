import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { TrustError } from '@trust/core';
import { checkBridgeText, toBridgeText } from './bridge-limits.js';
import { isGuestIdentifier } from './guest-prelude.js';
import type { GuestEntry } from './guest-prelude.js';
import { createTypeStripper } from './type-strip.js';
import type { CodeLanguage, TypeStripper } from './type-strip.js';
import { SLOTS_PER_WORKER, createWorkerPool, defaultCodeWorkers } from './worker-pool.js';
import type { CodeWorker, CodeWorkerStats } from './worker-pool.js';
import type { CodeErrorCode, RunRequest, WorkerResult, WorkerToHost } from './worker-protocol.js';
import { codeSandboxOptionsSchema } from '../options/code-options.js';
import { checkOptions } from '../options/strict-options.js';

export type { CodeErrorCode } from './worker-protocol.js';

/** Hard ceiling on one execution's wall clock, whatever the config says. */
export const CODE_TIMEOUT_CEILING_MS = 300_000;
/** Deepest chain of code started from code (`adf.sys_code` / `adf.sys_lambda` inside a run): outer + 4. */
export const MAX_CODE_NESTING_DEPTH = 4;
/** Default cap on nested runs alive at once under one top-level run. */
export const DEFAULT_MAX_NESTED_RUNS = 4;
/** How long past the deadline the host waits for the worker's own clean stop before terminating it. */
export const CODE_TERMINATE_GRACE_MS = 50;

/** The host side of the `adf` bridge: one call per `adf.<method>(args)` in the guest. */
export type BridgeHandler = (method: string, args: unknown) => Promise<unknown>;

/** Options of one execution. */
export interface CodeRunOptions {
  /** Agent source. Runs as the body of an async function, so `return` and `await` work. */
  readonly code: string;
  /** `typescript`: types are stripped on the host first (not checked). Default `javascript`. */
  readonly language?: CodeLanguage;
  /** File name used in messages (e.g. the lambda's path). */
  readonly fileName?: string;
  /** Called on the main thread for every `adf.*` call; its result is JSON-copied into the guest. */
  readonly bridge: BridgeHandler;
  /** Wall-clock limit; clamped to 1..300000 ms. Default 10000. A nested run gets at most what its tree has left. */
  readonly timeoutMs?: number;
  /** Memory limit of the run (and of the runs it starts) in bytes. Default 64 MiB. */
  readonly memoryBytes?: number;
  /** Script body (default) or a named function with JSON arguments (lambdas). */
  readonly entry?: GuestEntry;
  /** Aborts the execution like a timeout. */
  readonly signal?: AbortSignal;
}

/** Outcome of one execution. Values are JSON copies: nothing is shared with the isolate. */
export type CodeResult =
  | { readonly ok: true; readonly value: unknown; readonly logs: readonly string[] }
  | {
      readonly ok: false;
      readonly code: CodeErrorCode;
      readonly name: string;
      readonly message: string;
      readonly logs: readonly string[];
    };

/** Runs agent code in QuickJS isolates on a small pool of worker threads. */
export interface CodeSandbox {
  /** Runs code in a brand-new QuickJS runtime and context, disposed afterwards. */
  run(options: CodeRunOptions): Promise<CodeResult>;
  /** Starts the pool's workers now (otherwise they start on first use). */
  warm(): void;
  /** Terminates every worker; runs in progress end with `CODE_ABORTED`. */
  close(): Promise<void>;
  /** Workers started, retired (never reused), alive and busy. */
  stats(): CodeWorkerStats;
}

/** Options of {@link createCodeSandbox}. */
export interface CodeSandboxOptions {
  /** Worker threads of this sandbox, one top-level run each at a time (default min(2, CPUs)). */
  readonly workers?: number;
  /** Maximum bridge calls per execution (default 10000). */
  readonly maxBridgeCalls?: number;
  /** Most bridge calls of one execution in flight at once; the rest queue in the worker (default 16). */
  readonly maxInflightCalls?: number;
  /** Maximum bytes of one bridge argument or result, and of the final value (default 8 MiB). */
  readonly maxMessageBytes?: number;
  /** Maximum bytes of captured console output (default 64 KiB). */
  readonly maxLogBytes?: number;
  /** Guest stack size in bytes (default 128 KiB). */
  readonly stackBytes?: number;
  /** Nested runs alive at once under one top-level run (default {@link DEFAULT_MAX_NESTED_RUNS}). */
  readonly maxNestedRuns?: number;
  /** Strips TypeScript; default a fresh {@link createTypeStripper}. */
  readonly typeStripper?: TypeStripper;
}

interface Tree {
  readonly worker: CodeWorker;
  readonly deadline: number;
  nested: number;
  poisoned: boolean;
  readonly freeSlots: number[];
  readonly records: Set<Run>;
}
interface Run {
  readonly id: number;
  readonly tree: Tree;
  readonly depth: number;
  readonly slot: number;
  readonly timeoutMs: number;
  readonly bridge: BridgeHandler;
  settled: boolean;
  settle(r: CodeResult): void;
}

const NESTED_TIMEOUT_NOTE = ' (nested run; the worker of its tree was terminated)';
const failure = (code: CodeErrorCode, name: string, message: string, logs: readonly string[] = []): CodeResult => ({
  ok: false,
  code,
  name,
  message,
  logs,
});
const clampTimeout = (ms: number | undefined): number =>
  Math.min(Math.max(ms === undefined || !Number.isFinite(ms) ? 10_000 : Math.floor(ms), 1), CODE_TIMEOUT_CEILING_MS);

/**
 * Creates a sandbox for agent code: QuickJS compiled to WebAssembly, run in worker threads. Each
 * run gets a fresh QuickJS runtime and context; nothing persists between runs. The main thread
 * holds the deadline by terminating the worker, and a worker that timed out or failed on a
 * resource is never reused. Code started from code (`adf.sys_code`) runs in the same worker
 * under the outer run's deadline, memory and depth budget.
 *
 * @example
 * ```ts
 * const sandbox = createCodeSandbox();
 * const r = await sandbox.run({
 *   code: 'return (await adf.fs_read({ path: "a.txt" })).content',
 *   bridge: (m, a) => gate.call(m, a, { origin: 'code' }),
 * });
 * await sandbox.close();
 * ```
 */
export function createCodeSandbox(options: CodeSandboxOptions = {}): CodeSandbox {
  checkOptions('createCodeSandbox', codeSandboxOptionsSchema, options);
  const maxBytes = options.maxMessageBytes ?? 8 * 1024 * 1024;
  const maxNested = Math.min(options.maxNestedRuns ?? DEFAULT_MAX_NESTED_RUNS, SLOTS_PER_WORKER - 1);
  const stripper = options.typeStripper ?? createTypeStripper();
  const current = new AsyncLocalStorage<Run>();
  const runs = new Map<number, Run>();
  const trees = new Map<CodeWorker, Tree>();
  let nextId = 0;

  const post = (w: CodeWorker, m: unknown) => {
    if (!w.dead) w.thread.postMessage(m);
  };
  const endTree = (tree: Tree, result: CodeResult) => {
    for (const r of [...tree.records]) {
      runs.delete(r.id);
      r.settle(result);
    }
    tree.records.clear();
    trees.delete(tree.worker);
  };
  const onCall = (w: CodeWorker, m: Extract<WorkerToHost, { t: 'call' }>) => {
    const reply = (r: { ok: true; text: string } | { ok: false; name: string; message: string; code: string }) =>
      post(w, { t: 'reply', id: m.id, call: m.call, ...r });
    const run = runs.get(m.id);
    if (!run || run.settled)
      return reply({ ok: false, name: 'AbortError', message: 'the execution has ended', code: 'CODE_ABORTED' });
    const bad = checkBridgeText(m.args, `arguments of adf.${m.method}()`, maxBytes);
    if (bad) return reply({ ok: false, name: 'AdfError', message: bad.message, code: bad.code });
    const args = JSON.parse(m.args) as unknown;
    run.bridge(m.method, args).then(
      (value) => {
        const out = toBridgeText(value, `result of adf.${m.method}()`, maxBytes);
        reply(
          out.ok
            ? { ok: true, text: out.text }
            : { ok: false, name: 'AdfError', message: out.violation.message, code: out.violation.code },
        );
      },
      (err: unknown) => {
        const e = err as { name?: unknown; message?: unknown; code?: unknown };
        reply({
          ok: false,
          name: typeof e?.name === 'string' ? e.name : 'AdfError',
          message: typeof e?.message === 'string' ? e.message : String(err),
          code: typeof e?.code === 'string' ? e.code : 'ADF_ERROR',
        });
      },
    );
  };
  const toResult = (r: WorkerResult, logs: readonly string[]): CodeResult => {
    if (!r.ok) return failure(r.code, r.name, r.message, logs);
    const bad = checkBridgeText(r.valueText, 'the result', maxBytes);
    return bad
      ? failure(bad.code, 'RangeError', bad.message, logs)
      : { ok: true, value: JSON.parse(r.valueText) as unknown, logs };
  };

  const pool = createWorkerPool({
    size: Math.max(1, Math.floor(options.workers ?? defaultCodeWorkers())),
    init: {
      memoryBytes: 64 * 1024 * 1024,
      limits: {
        maxCalls: options.maxBridgeCalls ?? 10_000,
        maxBytes,
        maxLogBytes: options.maxLogBytes ?? 64 * 1024,
        stackBytes: options.stackBytes ?? 128 * 1024,
        maxInflight: options.maxInflightCalls ?? 16,
      },
    },
    events: {
      onMessage(w, m) {
        if (m.t === 'call') return onCall(w, m);
        if (m.t !== 'done') return;
        const run = runs.get(m.id);
        if (!run) return;
        runs.delete(m.id);
        run.tree.records.delete(run);
        if (run.slot > 0) run.tree.freeSlots.push(run.slot);
        if (m.poisoned) run.tree.poisoned = true;
        run.settle(toResult(m.result, m.logs));
      },
      onExit(w, error) {
        const tree = trees.get(w);
        if (!tree) return;
        const oom = (error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
        endTree(
          tree,
          oom
            ? failure('CODE_MEMORY_LIMIT', 'RangeError', 'execution exceeded its memory limit (worker heap)')
            : failure(
                'CODE_WORKER_FAILED',
                'InternalError',
                `the code worker stopped${error ? `: ${error.message}` : ''}`,
              ),
        );
      },
    },
  });

  const start = (
    tree: Tree,
    depth: number,
    slot: number,
    input: CodeRunOptions,
    code: string,
    timeoutMs: number,
    deadline: number,
    argsText?: string,
  ): Promise<CodeResult> => {
    const id = ++nextId;
    return new Promise<CodeResult>((resolve) => {
      // Bridge calls arrive as worker messages, outside the caller's async context: bind them to
      // it (the caller's async-local state, e.g. trigger depth), plus this run for nesting.
      // (A resource entered per call, not `AsyncResource.bind`: binding costs ~50 µs per run.)
      const scope = new AsyncResource('trust.code-run');
      const bridge = (method: string, args: unknown) =>
        scope.runInAsyncScope(() => current.run(run, () => Promise.resolve().then(() => input.bridge(method, args))));
      const run: Run = {
        id,
        tree,
        depth,
        slot,
        timeoutMs,
        bridge,
        settled: false,
        settle(r) {
          if (run.settled) return;
          run.settled = true;
          clearTimeout(timer);
          input.signal?.removeEventListener('abort', onAbort);
          if (depth > 0) tree.nested--;
          resolve(r);
          if (depth === 0) finishTree(tree, r);
        },
      };
      // Past the deadline (plus a short grace for the worker's own clean stop) the worker is
      // terminated: that ends this run and every run of its tree, whatever the guest is doing.
      const timer = setTimeout(
        () => {
          if (run.settled) return;
          tree.poisoned = true;
          const r = failure(
            'CODE_TIMEOUT',
            'TimeoutError',
            `execution exceeded ${timeoutMs} ms${depth > 0 ? NESTED_TIMEOUT_NOTE : ''}`,
          );
          pool.retire(tree.worker);
          endTree(tree, r);
        },
        Math.max(0, deadline - Date.now()) + CODE_TERMINATE_GRACE_MS,
      );
      const onAbort = () => {
        Atomics.store(tree.worker.stopFlags, slot, 1);
        tree.poisoned = true;
        if (depth === 0) pool.retire(tree.worker);
        run.settle(failure('CODE_ABORTED', 'AbortError', 'execution aborted'));
      };
      runs.set(id, run);
      tree.records.add(run);
      if (depth > 0) tree.nested++;
      if (input.signal?.aborted) {
        onAbort();
        return;
      }
      input.signal?.addEventListener('abort', onAbort, { once: true });
      Atomics.store(tree.worker.stopFlags, slot, 0);
      const entry = input.entry;
      const req: RunRequest = {
        t: 'run',
        id,
        slot,
        code,
        deadline,
        timeoutMs,
        memoryBytes: input.memoryBytes ?? 64 * 1024 * 1024,
        ...(entry?.kind === 'function' ? { fn: entry.name, argsText: argsText ?? 'null' } : {}),
      };
      post(tree.worker, req);
    });
  };

  const finishTree = (tree: Tree, r: CodeResult) => {
    const w = tree.worker;
    if (trees.get(w) !== tree) return;
    // Runs still alive under a finished top-level run (not awaited by the guest) end with it.
    const leftovers = tree.records.size > 0;
    if (w.dead || tree.poisoned || leftovers || (!r.ok && r.code !== 'CODE_ERROR' && r.code !== 'CODE_SYNTAX')) {
      pool.retire(w);
      endTree(tree, failure('CODE_ABORTED', 'AbortError', 'the run that started this one has ended'));
    } else {
      trees.delete(w);
      pool.release(w);
    }
  };

  return {
    async run(input) {
      let code = input.code;
      if (input.language === 'typescript') {
        const stripped = stripper.strip(input.code, input.fileName ?? 'agent-code.ts');
        if (!stripped.ok)
          return failure('CODE_SYNTAX', 'SyntaxError', `${stripped.message} (types are stripped, not checked)`);
        code = stripped.code;
      }
      let argsText: string | undefined;
      if (input.entry?.kind === 'function') {
        if (!isGuestIdentifier(input.entry.name))
          throw new TrustError('CODE_ENTRY_INVALID', `invalid entry name ${JSON.stringify(input.entry.name)}`, {
            hint: 'a lambda entry is a plain identifier',
          });
        const out =
          'argsText' in input.entry
            ? { ok: true as const, text: input.entry.argsText }
            : toBridgeText(input.entry.args, 'the lambda arguments', maxBytes);
        if (!out.ok) return failure(out.violation.code, 'RangeError', out.violation.message);
        argsText = out.text;
      }
      const timeoutMs = clampTimeout(input.timeoutMs);
      const parent = current.getStore();
      if (parent && !parent.settled && trees.get(parent.tree.worker) === parent.tree) {
        // Nested: same worker, the tree's remaining time, a bounded depth and fan-out.
        const tree = parent.tree;
        if (parent.depth + 1 > MAX_CODE_NESTING_DEPTH)
          return failure(
            'CODE_NESTING_LIMIT',
            'RangeError',
            `code started from code may nest at most ${MAX_CODE_NESTING_DEPTH} levels deep`,
          );
        const slot = tree.freeSlots.pop();
        if (tree.nested >= maxNested || slot === undefined) {
          if (slot !== undefined) tree.freeSlots.push(slot);
          return failure(
            'CODE_NESTING_LIMIT',
            'RangeError',
            `at most ${maxNested} nested runs may be alive at once under one execution`,
          );
        }
        const deadline = Math.min(Date.now() + timeoutMs, tree.deadline);
        return start(tree, parent.depth + 1, slot, input, code, Math.max(0, deadline - Date.now()), deadline, argsText);
      }
      let worker: CodeWorker;
      try {
        worker = await pool.acquire(input.signal);
      } catch (e) {
        if (e instanceof TrustError && (e.code === 'CODE_ABORTED' || e.code === 'CODE_SANDBOX_CLOSED'))
          return failure('CODE_ABORTED', 'AbortError', e.message);
        throw e;
      }
      // The wall clock starts when the run has its worker, with QuickJS loaded.
      await worker.ready;
      if (worker.dead) return failure('CODE_WORKER_FAILED', 'InternalError', 'the code worker stopped while starting');
      const deadline = Date.now() + timeoutMs;
      const tree: Tree = {
        worker,
        deadline,
        nested: 0,
        poisoned: false,
        freeSlots: Array.from({ length: SLOTS_PER_WORKER - 1 }, (_v, i) => SLOTS_PER_WORKER - 1 - i),
        records: new Set(),
      };
      trees.set(worker, tree);
      return start(tree, 0, 0, input, code, timeoutMs, deadline, argsText);
    },
    warm: () => pool.warm(),
    stats: () => pool.stats(),
    async close() {
      for (const tree of [...trees.values()])
        endTree(tree, failure('CODE_ABORTED', 'AbortError', 'the code sandbox was closed'));
      await pool.close();
    },
  };
}
