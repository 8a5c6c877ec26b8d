import { Readable } from 'node:stream';
import { util, type Dispatcher } from 'undici';

/** What happens to a response body, decided synchronously when the headers arrive. */
export type BodyMode = 'buffer' | 'stream' | 'discard';

/** The status line and headers of one hop's response. */
export interface HopHead {
  readonly statusCode: number;
  readonly statusText: string;
  /** Lowercase names; repeated headers as arrays (undici's `parseHeaders` shape). */
  readonly headers: Record<string, string | string[]>;
}

/** What one hop settles with. `bytes` for `buffer`, `body` for `stream`, neither for `discard`. */
export interface HopResult {
  readonly head: HopHead;
  readonly mode: BodyMode;
  /** A fresh buffer holding exactly the body (no view into the socket's read buffers). */
  readonly bytes?: Uint8Array;
  readonly body?: Readable;
}

export interface HopOptions {
  /** Picks the body mode from the head; an Error refuses the response (the request is aborted). */
  readonly choose: (head: HopHead) => BodyMode | Error;
  /** Body bytes allowed before `tooLarge()` aborts the exchange (`buffer` mode always). */
  readonly maxBytes: number;
  /** Apply `maxBytes` to a `stream` body too (false when the consumer caps decoded bytes itself). */
  readonly capStream: boolean;
  readonly tooLarge: () => Error;
  /** Maps a transport error that reaches a `stream` body after the hop settled. */
  readonly mapError: (e: unknown) => Error;
  /** Called once when a `stream` body closes (ended, failed or destroyed). */
  readonly onBodyClosed?: () => void;
}

/** A redirect or null-body answer is drained up to this many bytes, then the connection is dropped. */
const DISCARD_MAX = 128 * 1024;

class AbortedBeforeEnd extends Error {
  constructor() {
    super('the response body was destroyed before it ended');
    this.name = 'AbortError';
  }
}

/**
 * The body stream of a `stream` hop: undici pushes into it, reading resumes the socket, and
 * destroying it early aborts the request (the connection is not reused).
 */
class HopBody extends Readable {
  #resume: () => void;
  #abort: (e: Error) => void;
  #closed: (() => void) | undefined;
  #used = false;

  constructor(resume: () => void, abort: (e: Error) => void, closed: (() => void) | undefined) {
    super({ highWaterMark: 64 * 1024 });
    this.#resume = resume;
    this.#abort = abort;
    this.#closed = closed;
  }

  override _read(): void {
    this.#resume();
  }

  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    if (event === 'data' || event === 'readable') this.#used = true;
    return super.on(event, listener);
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    const ended = this.readableEnded || (this as unknown as { _readableState: { ended: boolean } })._readableState.ended;
    if (!ended) this.#abort(err ?? new AbortedBeforeEnd());
    const closed = this.#closed;
    this.#closed = undefined;
    closed?.();
    // An error raised in the tick the stream was handed over must reach a listener attached a
    // microtask later (after `await client.request(...)`), not crash the process.
    if (err !== null && !this.#used) setImmediate(callback, err);
    else callback(err);
  }
}

/**
 * One request/response exchange on the dispatcher, without undici's `request` wrapper: a
 * dispatch handler that picks the body mode when the headers arrive, caps body bytes as they
 * stream, and can be aborted at any time (before the connection exists, too). Small bodies are
 * collected into one Buffer without any stream object.
 */
export class Hop implements Dispatcher.DispatchHandler {
  readonly #opts: HopOptions;
  #abortFn: ((e: Error) => void) | undefined;
  #reason: Error | undefined;
  #settled = false;
  #resolve!: (r: HopResult) => void;
  #reject!: (e: unknown) => void;
  #head: HopHead | undefined;
  #mode: BodyMode | undefined;
  #chunks: Buffer[] = [];
  #total = 0;
  #body: HopBody | undefined;
  #finished = false;
  /** Settles once the hop's result is known: at the headers for `stream`/`discard`, at the end for `buffer`. */
  readonly result: Promise<HopResult>;

  constructor(opts: HopOptions) {
    this.#opts = opts;
    this.result = new Promise<HopResult>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** The head, once it arrived (also after a later body failure). */
  get head(): HopHead | undefined {
    return this.#head;
  }

  /** True once `abort` was called (by the deadline, the caller's signal or a cap). */
  get aborted(): boolean {
    return this.#reason !== undefined;
  }

  /** True once the response completed or failed: nothing more will arrive. */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * Aborts the exchange with `reason`: before the connection exists the result rejects at once
   * (the request is aborted as soon as undici hands it a socket); afterwards the socket is
   * destroyed and a streaming body fails with the mapped reason.
   */
  abort(reason: Error): void {
    if (this.#finished) return;
    this.#reason ??= reason;
    if (this.#abortFn !== undefined) this.#abortFn(reason);
    else this.#fail(reason);
  }

  #fail(e: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(e);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.#abortFn = abort as (e: Error) => void;
    if (this.#reason !== undefined) abort(this.#reason);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean {
    if (statusCode < 200) return true; // 1xx informational: the real answer follows
    const head: HopHead = { statusCode, statusText: statusText ?? '', headers: util.parseHeaders(rawHeaders) };
    this.#head = head;
    const mode = this.#opts.choose(head);
    if (mode instanceof Error) {
      this.#finished = true;
      this.#fail(mode);
      this.#abortFn?.(mode);
      return false;
    }
    this.#mode = mode;
    if (mode === 'stream') {
      const abort = (e: Error) => {
        if (!this.#finished) this.#abortFn?.(e);
      };
      this.#body = new HopBody(resume, abort, this.#opts.onBodyClosed);
      this.#settled = true;
      this.#resolve({ head, mode, body: this.#body });
    } else if (mode === 'discard') {
      this.#settled = true;
      this.#resolve({ head, mode });
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#total += chunk.byteLength;
    const mode = this.#mode;
    if (mode === 'discard') {
      if (this.#total > DISCARD_MAX) this.#abortFn?.(new AbortedBeforeEnd());
      return true;
    }
    if (this.#total > this.#opts.maxBytes && (mode === 'buffer' || this.#opts.capStream)) {
      const e = this.#opts.tooLarge();
      this.#reason ??= e;
      this.#abortFn?.(e);
      return false;
    }
    if (mode === 'buffer') {
      this.#chunks.push(chunk);
      return true;
    }
    return (this.#body as HopBody).push(chunk);
  }

  onComplete(): void {
    this.#finished = true;
    if (this.#mode === 'buffer') {
      // Chunks are views into the socket's read buffers: copy them into one buffer of exactly the
      // body's size, so a response kept around does not pin those buffers.
      const c = this.#chunks;
      this.#chunks = [];
      const bytes = new Uint8Array(this.#total);
      let at = 0;
      for (const chunk of c) {
        bytes.set(chunk, at);
        at += chunk.byteLength;
      }
      this.#settled = true;
      this.#resolve({ head: this.#head as HopHead, mode: 'buffer', bytes });
    } else if (this.#mode === 'stream') {
      (this.#body as HopBody).push(null);
    }
  }

  onError(err: Error): void {
    this.#finished = true;
    this.#chunks = [];
    // A cap or deadline that aborted the request wins over the transport's own wording.
    const e = this.#reason ?? err;
    if (!this.#settled) {
      this.#fail(e);
      return;
    }
    const body = this.#body;
    if (body !== undefined && !body.destroyed) {
      const mapped = this.#opts.mapError(e);
      queueMicrotask(() => body.destroy(mapped));
    }
  }
}
