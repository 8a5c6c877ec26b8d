/**
 * Messages between the host (main thread) and a code worker. Every value the guest produces
 * crosses as JSON text, so the host checks its size and depth before parsing it.
 */

/** Stable error codes of a failed execution. */
export type CodeErrorCode =
  | 'CODE_TIMEOUT'
  | 'CODE_MEMORY_LIMIT'
  | 'CODE_STACK_OVERFLOW'
  | 'CODE_ABORTED'
  | 'CODE_SYNTAX'
  | 'CODE_ERROR'
  | 'CODE_NESTING_LIMIT'
  | 'CODE_MESSAGE_TOO_LARGE'
  | 'CODE_VALUE_TOO_DEEP'
  | 'CODE_WORKER_FAILED';

/** Limits the worker applies inside one execution. */
export interface WorkerLimits {
  readonly maxCalls: number;
  readonly maxBytes: number;
  readonly maxLogBytes: number;
  readonly stackBytes: number;
  /** Most bridge calls of one execution in flight to the host at once; the rest queue in the worker. */
  readonly maxInflight: number;
}

/** Data every worker starts with. */
export interface WorkerInit {
  /** One Int32 per run slot: the host stores 1 to stop the run in that slot (read by the interrupt handler). */
  readonly stopFlags: SharedArrayBuffer;
  readonly limits: WorkerLimits;
  /** Memory limit of the engine loaded before the first run (the usual limit of this sandbox). */
  readonly memoryBytes: number;
}

/** Host → worker: start an execution. */
export interface RunRequest {
  readonly t: 'run';
  readonly id: number;
  readonly slot: number;
  readonly code: string;
  /** `undefined`: script body; else a named function called with the JSON arguments `argsText`. */
  readonly fn?: string;
  readonly argsText?: string;
  /** Absolute deadline (ms since the epoch; same clock on every thread). */
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly memoryBytes: number;
}

/** Host → worker: the answer to one bridge call. */
export type CallReply =
  | { readonly t: 'reply'; readonly id: number; readonly call: number; readonly ok: true; readonly text: string }
  | {
      readonly t: 'reply';
      readonly id: number;
      readonly call: number;
      readonly ok: false;
      readonly name: string;
      readonly message: string;
      readonly code: string;
    };

export type HostToWorker = RunRequest | CallReply;

/** Worker → host: a bridge call (`adf.<method>(args)`), arguments as JSON text. */
export interface CallRequest {
  readonly t: 'call';
  readonly id: number;
  readonly call: number;
  readonly method: string;
  readonly args: string;
}

/** The outcome of one execution as the worker reports it; `value` is JSON text. */
export type WorkerResult =
  | { readonly ok: true; readonly valueText: string }
  | { readonly ok: false; readonly code: CodeErrorCode; readonly name: string; readonly message: string };

/** Worker → host: an execution ended. `poisoned`: the engine hit a resource failure; retire the worker. */
export interface RunDone {
  readonly t: 'done';
  readonly id: number;
  readonly result: WorkerResult;
  readonly logs: readonly string[];
  readonly poisoned: boolean;
}

/** Worker → host: the engine is loaded and the worker takes runs. */
export interface WorkerReady {
  readonly t: 'ready';
}

export type WorkerToHost = CallRequest | RunDone | WorkerReady;
