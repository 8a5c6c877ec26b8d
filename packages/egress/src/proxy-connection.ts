import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { deny, type Deny } from '@trust/core';
import type { ResolvedClientLimits } from './proxy-client-limits.js';

/** What the connection does when one of its deadlines passes. */
export interface ConnectionEvents {
  /** A deadline passed with no response begun: answer `408` with `d`, audit it, close. */
  timedOut(socket: Socket, d: Deny): void;
}

/** The request being answered on a connection. */
export interface CurrentRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Set when the body failed to parse: the refusal was already written and audited. */
  malformed?: Deny;
  /** Called when the request deadline passes before the request body ended. */
  onTimeout?: (d: Deny) => void;
}

/**
 * One client connection of the proxy: its deadlines (first byte, request head, whole request,
 * keep-alive idle), enforced here rather than by a listening server's checker, and its requests,
 * answered one at a time in order. Nothing after a request or an answer that closes the
 * connection is judged or dispatched.
 */
export interface ClientConnection {
  /** Bytes arrived from the client (the proxy's own `data` listener). */
  bytes(): void;
  /** Queues a parsed request; `run` is called when every earlier one is answered. */
  enqueue(req: IncomingMessage, res: ServerResponse, run: (current: CurrentRequest) => Promise<void>): void;
  /** The request being answered, if any. */
  readonly current: CurrentRequest | undefined;
  /** The connection became a tunnel or a SOCKS session: HTTP deadlines no longer apply. */
  handOff(): void;
  /** Stops every timer (the socket closed). */
  dispose(): void;
}

type Phase = 'first-byte' | 'head' | 'busy' | 'idle' | 'done';

function timeoutDeny(what: string, ms: number): Deny {
  return deny('EGRESS_CLIENT_TIMEOUT', `egress proxy: ${what} within ${ms} ms`, {
    rule: 'client-deadline',
    hint: 'send the whole request promptly, or open the connection only when you have one to send',
  });
}

/** Whether the request asks to close the connection after its answer (RFC 9112 §9.3, §9.6). */
function wantsClose(req: IncomingMessage): boolean {
  const tokens = String(req.headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((t) => t.trim());
  if (tokens.includes('close')) return true;
  return req.httpVersion === '1.0' && !tokens.includes('keep-alive');
}

/** Whether the answer closes the connection (the proxy's refusals all do). */
function answerCloses(res: ServerResponse): boolean {
  const c = res.getHeader('connection');
  return (typeof c === 'string' && c.toLowerCase().includes('close')) || (res as { _last?: boolean })._last === true;
}

export function createClientConnection(
  socket: Socket,
  limits: ResolvedClientLimits,
  events: ConnectionEvents,
  now: () => number,
): ClientConnection {
  let phase: Phase = 'first-byte';
  let timer: NodeJS.Timeout | undefined;
  let requestTimer: NodeJS.Timeout | undefined;
  // The first byte of the request being read (or of the next one, arrived while busy).
  let headStarted: number | undefined;
  let current: CurrentRequest | undefined;
  let closing = false;
  const queue: { req: IncomingMessage; res: ServerResponse; run: (c: CurrentRequest) => Promise<void> }[] = [];
  let paused = false;

  const arm = (ms: number, fire: () => void): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, Math.max(1, ms));
  };
  const fail = (d: Deny): void => {
    phase = 'done';
    events.timedOut(socket, d);
  };
  const startHead = (at: number): void => {
    phase = 'head';
    headStarted = at;
    arm(limits.headerTimeoutMs - (now() - at), () =>
      fail(timeoutDeny('the request head did not arrive complete', limits.headerTimeoutMs)),
    );
  };
  arm(limits.firstByteTimeoutMs, () => fail(timeoutDeny('no request arrived', limits.firstByteTimeoutMs)));

  const settle = (): void => {
    if (requestTimer) clearTimeout(requestTimer);
    requestTimer = undefined;
    current = undefined;
    if (closing || phase === 'done') return;
    if (paused && queue.length < limits.maxPipelined) {
      paused = false;
      socket.resume();
    }
    const next = queue.shift();
    if (next) return void start(next);
    if (headStarted !== undefined) return void startHead(headStarted);
    phase = 'idle';
    arm(limits.idleTimeoutMs, () => {
      phase = 'done';
      socket.destroy();
    });
  };

  const start = (item: (typeof queue)[number]): void => {
    phase = 'busy';
    if (timer) clearTimeout(timer);
    timer = undefined;
    const began = headStarted ?? now();
    headStarted = undefined;
    const c: CurrentRequest = { req: item.req, res: item.res };
    current = c;
    if (wantsClose(item.req)) closing = true;
    requestTimer = setTimeout(
      () => {
        if (item.req.complete || current !== c) return;
        const d = timeoutDeny('the request body did not arrive complete', limits.requestTimeoutMs);
        if (c.onTimeout) c.onTimeout(d);
        else fail(d);
      },
      Math.max(1, limits.requestTimeoutMs - (now() - began)),
    );
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      if (answerCloses(item.res)) closing = true;
      if (closing) {
        // Nothing queued behind an answer that closes the connection is ever judged.
        queue.length = 0;
        socket.end();
      }
      settle();
    };
    item.res.once('finish', end);
    item.res.once('close', end);
    item.run(c).catch(() => item.res.destroy());
  };

  return {
    bytes() {
      if (phase === 'first-byte' || phase === 'idle') startHead(now());
      else if (phase === 'busy' && headStarted === undefined) headStarted = now();
    },
    enqueue(req, res, run) {
      if (closing || phase === 'done') return void res.destroy();
      if (current === undefined) {
        if (phase === 'head' || phase === 'idle' || phase === 'first-byte') return start({ req, res, run });
      }
      // A pipelined request, already parsed: it waits for its turn.
      headStarted = undefined;
      queue.push({ req, res, run });
      if (!paused && queue.length >= limits.maxPipelined) {
        paused = true;
        socket.pause();
      }
    },
    get current() {
      return current;
    },
    handOff() {
      phase = 'done';
      if (timer) clearTimeout(timer);
      if (requestTimer) clearTimeout(requestTimer);
    },
    dispose() {
      phase = 'done';
      if (timer) clearTimeout(timer);
      if (requestTimer) clearTimeout(requestTimer);
    },
  };
}

/** The deadline refusal the connection hands to `ConnectionEvents.timedOut` (for tests and docs). */
export { timeoutDeny };
