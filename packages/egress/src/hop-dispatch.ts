import { Readable } from 'node:stream';
import { util, type Dispatcher } from 'undici';

/** What happens to a response body, decided synchronously when the headers arrive. */
export type BodyMode = 'buffer' | 'stream' | 'discard' | 'sniff';

/** The status line and headers of one hop's response. */
export interface HopHead {
  readonly statusCode: number;
  readonly statusText: string;
  /** Lowercase names; repeated headers as arrays (undici's `parseHeaders` shape). */
  readonly headers: Record<string, string | string[]>;
}

/** What one hop settles with. `bytes` for `buffer`, `body` for `stream`, neither for `discard` and `sniff`. */
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

  override on(event: string | symbol, listener: Parameters<Readable['on']>[1]): this {
    if (event === 'data' || event === 'readable') this.#used = true;
    return super.on(event, listener);
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    const ended =
      this.readableEnded || (this as unknown as { _readableState: { ended: boolean } })._readableState.ended;
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

function joined(chunks: readonly Buffer[], total: number): Uint8Array {
  // Chunks are views into the socket's read buffers: copy them into one buffer of exactly the
  // body's size, so a response kept around does not pin those buffers.
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * One request/response exchange on the dispatcher, without undici's `request` wrapper: a
 * dispatch handler that picks the body mode when the headers arrive, caps body bytes as they
 * stream, and can be aborted at any time (before the connection exists, too). Small bodies are
 * collected into one buffer without any stream object.
 *
 * Modes: `buffer` settles at the end with the bytes; `stream` settles at the headers with a
 * Readable; `discard` settles at the headers and drops the body; `sniff` settles at the headers
 * and keeps collecting: the caller then takes the bytes with {@link Hop.takeComplete} if the
 * whole body already arrived (a small body usually comes in the same read as the headers), or
 * turns the hop into a stream with {@link Hop.toStream}.
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
  #resume: () => void = () => {};
  #chunks: Buffer[] = [];
  #total = 0;
  #body: HopBody | undefined;
  #finished = false;
  #completed = false;
  #error: Error | undefined;
  /** Settles once the hop's result is known: at the headers for `stream`/`discard`/`sniff`, at the end for `buffer`. */
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

  /** `sniff` mode: the whole body if it completed without error, else `undefined`. */
  takeComplete(): Uint8Array | undefined {
    if (this.#mode !== 'sniff' || !this.#completed || this.#reason !== undefined || this.#error !== undefined)
      return undefined;
    const bytes = joined(this.#chunks, this.#total);
    this.#chunks = [];
    this.#mode = 'discard';
    return bytes;
  }

  /** `sniff` mode: a Readable that replays what arrived so far and streams the rest. */
  toStream(): Readable {
    if (this.#mode !== 'sniff') throw new Error('Hop.toStream: not sniffing');
    this.#mode = 'stream';
    const body = this.#makeBody();
    for (const chunk of this.#chunks) body.push(chunk);
    this.#chunks = [];
    if (this.#completed) body.push(null);
    else if (this.#error !== undefined) {
      const mapped = this.#opts.mapError(this.#error);
      queueMicrotask(() => body.destroy(mapped));
    }
    return body;
  }

  #makeBody(): HopBody {
    const abort = (e: Error) => {
      if (!this.#finished) this.#abortFn?.(e);
    };
    this.#body = new HopBody(this.#resume, abort, this.#opts.onBodyClosed);
    return this.#body;
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
    this.#resume = resume;
    const mode = this.#opts.choose(head);
    if (mode instanceof Error) {
      this.#finished = true;
      this.#fail(mode);
      this.#abortFn?.(mode);
      return false;
    }
    this.#mode = mode;
    if (mode === 'stream') {
      this.#settled = true;
      this.#resolve({ head, mode, body: this.#makeBody() });
    } else if (mode === 'discard' || mode === 'sniff') {
      this.#settled = true;
      this.#resolve({ head, mode });
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#reason !== undefined) return false;
    this.#total += chunk.byteLength;
    const mode = this.#mode;
    if (mode === 'discard') {
      if (this.#total > DISCARD_MAX) this.#abortFn?.(new AbortedBeforeEnd());
      return true;
    }
    if (this.#total > this.#opts.maxBytes && (mode !== 'stream' || this.#opts.capStream)) {
      const e = this.#opts.tooLarge();
      this.#reason ??= e;
      this.#abortFn?.(e);
      return false;
    }
    if (mode === 'buffer' || mode === 'sniff') {
      this.#chunks.push(chunk);
      return true;
    }
    return (this.#body as HopBody).push(chunk);
  }

  onComplete(): void {
    // After an abort (cap, deadline, caller) the answer is a failure whatever else arrives.
    if (this.#reason !== undefined || this.#error !== undefined) return;
    this.#finished = true;
    this.#completed = true;
    if (this.#mode === 'buffer') {
      const bytes = joined(this.#chunks, this.#total);
      this.#chunks = [];
      this.#settled = true;
      this.#resolve({ head: this.#head as HopHead, mode: 'buffer', bytes });
    } else if (this.#mode === 'stream') {
      (this.#body as HopBody).push(null);
    }
  }

  onError(err: Error): void {
    this.#finished = true;
    // A cap or deadline that aborted the request wins over the transport's own wording.
    const e = this.#reason ?? err;
    if (this.#mode === 'sniff') {
      this.#error = e; // reported by toStream(); takeComplete() refuses an incomplete body
      this.#chunks = [];
      this.#total = 0;
    } else {
      this.#chunks = [];
    }
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
