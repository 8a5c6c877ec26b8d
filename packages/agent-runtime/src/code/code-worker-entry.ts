import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { loadEngine, newIsolate, runGuest } from './quickjs-run.js';
import type { Engine, Isolate } from './quickjs-run.js';
import type { CallRequest, HostToWorker, RunDone, RunRequest, WorkerInit, WorkerReady } from './worker-protocol.js';

// The entry of a code worker thread (built to dist/code-worker.js). The host gives it one
// top-level run at a time; nested runs of that run (adf.sys_code from code) execute here too,
// each in its own QuickJS runtime, so terminating this thread ends the whole tree.

/** Nice value of a code worker thread (Linux: per thread), below the host's event loop. */
const CODE_WORKER_NICE = 10;

if (!parentPort) throw new Error('code-worker must run in a worker thread');
serve(parentPort, workerData as WorkerInit);

/** Serves runs from the host until the thread is terminated. All state lives in this closure. */
function serve(port: MessagePort, init: WorkerInit): void {
  const stop = new Int32Array(init.stopFlags);
  const waiting = new Map<
    string,
    { resolve: (text: string) => void; reject: (e: { name: string; message: string; code: string }) => void }
  >();
  let engine: { limit: number; loaded: Promise<Engine> } | undefined;
  let active = 0;
  let nextCall = 0;
  // The next top-level run's isolate, made while this worker is idle (see makeSpare).
  let spare: Isolate | undefined;

  function engineFor(memoryBytes: number): Promise<Engine> {
    // Nested runs share the engine of the tree (its linear memory bounds the whole tree). A new
    // top-level run with another limit gets a fresh instance.
    if (!engine || (active <= 1 && engine.limit !== memoryBytes))
      engine = { limit: memoryBytes, loaded: loadEngine(memoryBytes) };
    return engine.loaded;
  }

  // After a run has reported (its isolate already disposed, so a failed disposal is in its answer and
  // the host retires this worker), make the next top-level run's isolate while idle. No code runs in
  // it before it is handed to one run. Failing to make one is not fatal: that run makes its own.
  function makeSpare(current: Engine): void {
    if (current.poisoned || active !== 0 || spare) return;
    try {
      spare = newIsolate(current);
    } catch {
      spare = undefined;
    }
  }

  async function start(req: RunRequest): Promise<void> {
    active++;
    let done: RunDone;
    let ran: Engine | undefined;
    try {
      const current = await engineFor(req.memoryBytes);
      if (current.poisoned) {
        done = {
          t: 'done',
          id: req.id,
          logs: [],
          poisoned: true,
          result: {
            ok: false,
            code: 'CODE_ABORTED',
            name: 'AbortError',
            message: 'the sandbox engine of this run failed earlier; no more code runs in it',
          },
        };
      } else {
        // A spare of an engine replaced since is dropped with that engine.
        const isolate = spare?.engine === current ? spare : undefined;
        spare = undefined;
        const { result, logs } = await runGuest(
          current,
          {
            code: req.code,
            ...(req.fn !== undefined ? { fn: req.fn, argsText: req.argsText ?? 'null' } : {}),
            deadline: req.deadline,
            timeoutMs: req.timeoutMs,
            memoryBytes: req.memoryBytes,
            stopRequested: () => Atomics.load(stop, req.slot) !== 0,
            call: (method, args) =>
              new Promise<string>((resolve, reject) => {
                const call = ++nextCall;
                waiting.set(`${req.id}:${call}`, { resolve, reject });
                const msg: CallRequest = { t: 'call', id: req.id, call, method, args };
                port.postMessage(msg);
              }),
          },
          init.limits,
          isolate ? { isolate } : {},
        );
        done = { t: 'done', id: req.id, result, logs, poisoned: current.poisoned };
        if (!current.poisoned) ran = current;
      }
    } catch (e) {
      done = {
        t: 'done',
        id: req.id,
        logs: [],
        poisoned: true,
        result: {
          ok: false,
          code: 'CODE_ERROR',
          name: 'InternalError',
          message: `code worker fault: ${(e as Error)?.message ?? String(e)}`,
        },
      };
    } finally {
      active--;
    }
    for (const key of [...waiting.keys()]) if (key.startsWith(`${req.id}:`)) waiting.delete(key);
    port.postMessage(done);
    // After the answer is on its way, and after a next run already waiting (which then makes its
    // own isolate): the host never waits on this.
    if (ran) {
      const used = ran;
      setImmediate(() => makeSpare(used));
    }
  }

  port.on('message', (m: HostToWorker) => {
    if (m.t === 'run') {
      void start(m);
      return;
    }
    const w = waiting.get(`${m.id}:${m.call}`);
    if (!w) return;
    waiting.delete(`${m.id}:${m.call}`);
    if (m.ok) w.resolve(m.text);
    else w.reject({ name: m.name, message: m.message, code: m.code });
  });

  // Load the engine before the first run, so a fresh worker answers its first run quickly.
  // Then lower this thread's scheduling priority: on Linux the nice value is per thread, so a
  // spinning guest yields the CPU to the host's event loop first. (After the load, so that no thread
  // this one starts for the file read inherits it.) Best effort: refused or unsupported is fine.
  void engineFor(init.memoryBytes).then((loaded) => {
    try {
      setPriority(CODE_WORKER_NICE);
    } catch {
      /* not permitted here */
    }
    makeSpare(loaded);
    const ready: WorkerReady = { t: 'ready' };
    port.postMessage(ready);
  });
}
