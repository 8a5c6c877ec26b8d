import { DEFAULT_MAX_JSON_DEPTH, checkJsonText, type AuditSink } from '@trust/core';
import { checkOptions } from '../options/strict-options.js';
import { meshWsSessionOptionsSchema } from './messaging-options.js';
import type { IngestFunction } from './ingress.js';
import {
  MESH_WS_CLOSE,
  MESH_WS_MAX_FRAME_BYTES,
  MESH_WS_VERSION,
  createMeshWsNonce,
  evaluateMeshWsAuth,
  messageFrameSchema,
  type AckFrame,
  type ChallengeFrame,
} from './mesh-ws-protocol.js';

const AUTH_FRAME_MAX_BYTES = 2048;

/** Limits of one mesh WebSocket connection. Every field has a default. */
export interface MeshWsLimits {
  /** Largest frame in bytes. Default {@link MESH_WS_MAX_FRAME_BYTES}. */
  readonly maxFrameBytes: number;
  /** Frames per second (one second of burst). Default 200. */
  readonly framesPerSecond: number;
  /** Bytes per second (one second of burst). Default 4 MiB. */
  readonly bytesPerSecond: number;
  /** Messages received but not yet judged by ingress. Default 32. */
  readonly maxPending: number;
  /** Time the client has to answer the challenge. Default 10 s. */
  readonly authTimeoutMs: number;
  /** A socket with no frame for this long is closed. Default 120 s. */
  readonly idleTimeoutMs: number;
  /** Accepted distance of the signed handshake timestamp from our clock. Default 60 s. */
  readonly authSkewMs: number;
}

export const DEFAULT_MESH_WS_LIMITS: MeshWsLimits = Object.freeze({
  maxFrameBytes: MESH_WS_MAX_FRAME_BYTES,
  framesPerSecond: 200,
  bytesPerSecond: 4 * 1024 * 1024,
  maxPending: 32,
  authTimeoutMs: 10_000,
  idleTimeoutMs: 120_000,
  authSkewMs: 60_000,
});

/** The socket as the session sees it: whatever WebSocket library the server uses. */
export interface MeshWsPeer {
  send(text: string): void;
  close(code: number, reason: string): void;
}

export interface MeshWsSessionOptions {
  /** The agent this socket delivers to (the `<did>` of the path). */
  readonly serverDid: string;
  /** That agent's ingress: the same function HTTP and local delivery call. */
  readonly ingest: IngestFunction;
  readonly peer: MeshWsPeer;
  /** Handshake results and forced closes go here (the recipient agent's audit log). */
  readonly audit?: AuditSink;
  /** The remote address, for the audit record. */
  readonly remote?: string;
  readonly limits?: Partial<MeshWsLimits>;
  readonly now?: () => number;
  readonly nonce?: () => string;
}

/** One server-side mesh connection: challenge, authenticate, then feed messages to ingress. */
export interface MeshWsSession {
  /** Sends the challenge and starts the handshake deadline. */
  start(): void;
  /** One frame from the client. */
  receive(data: Buffer | string, isBinary: boolean): void;
  /** The socket is gone: stop the timers. */
  closed(): void;
  /** The DID the client proved, once it has. */
  authenticatedDid(): string | undefined;
}

/**
 * Runs the mesh WebSocket protocol for one connection, independent of the socket library.
 * The server issues the nonce; the only frame accepted before authentication is the signed
 * answer; `ws_remote_did` comes from the handshake, never from a frame.
 *
 * @example
 * const session = createMeshWsSession({ serverDid, ingest, peer: { send: (t) => ws.send(t), close: (c, r) =>
 * ws.close(c, r) } });
 * ws.on('message', (data, binary) => session.receive(data as Buffer, binary));
 * ws.on('close', () => session.closed());
 * session.start();
 */
export function createMeshWsSession(input: MeshWsSessionOptions): MeshWsSession {
  const options = checkOptions('createMeshWsSession', meshWsSessionOptionsSchema, input);
  const limits: MeshWsLimits = { ...DEFAULT_MESH_WS_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  let nonce: string | undefined = (options.nonce ?? createMeshWsNonce)();
  let did: string | undefined;
  let done = false;
  let pending = 0;
  let chain: Promise<void> = Promise.resolve();
  let authTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const frames = bucket(limits.framesPerSecond, now);
  const bytes = bucket(limits.bytesPerSecond, now);

  const audit = (
    action: string,
    decision: 'allow' | 'deny',
    peerId: string,
    code?: string,
    details: Record<string, unknown> = {},
  ) =>
    options.audit?.record({
      principal: { kind: 'peer', id: peerId },
      action,
      target: options.serverDid,
      decision,
      rule: 'mesh-ws',
      ...(code === undefined ? {} : { code }),
      details: { transport: 'ws', ...(options.remote === undefined ? {} : { remote: options.remote }), ...details },
    });

  const stopTimers = () => {
    if (authTimer) clearTimeout(authTimer);
    if (idleTimer) clearTimeout(idleTimer);
  };
  const close = (closeCode: number, code: string, reason: string) => {
    if (done) return;
    done = true;
    stopTimers();
    nonce = undefined;
    // RFC 6455 caps a close reason at 123 bytes.
    options.peer.close(
      closeCode,
      Buffer.from(`${code}: ${reason}`)
        .subarray(0, 123)
        .toString('utf8')
        .replace(/\uFFFD+$/, ''),
    );
  };
  const refuse = (closeCode: number, code: string, reason: string, action = 'mesh.ws.close') => {
    audit(action, 'deny', did ?? 'unknown', code, { reason });
    close(closeCode, code, reason);
  };
  const send = (frame: object) => {
    if (!done) options.peer.send(JSON.stringify(frame));
  };
  const touch = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(
      () => refuse(MESH_WS_CLOSE.TIMEOUT, 'MESH_WS_IDLE', `no frame for ${limits.idleTimeoutMs} ms`),
      limits.idleTimeoutMs,
    );
    idleTimer.unref?.();
  };

  function authenticate(text: string) {
    const serverNonce = nonce;
    // Single use: whatever the answer, this nonce never verifies again.
    nonce = undefined;
    if (authTimer) clearTimeout(authTimer);
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      frame = undefined;
    }
    const claimed =
      typeof (frame as { did?: unknown } | undefined)?.did === 'string'
        ? String((frame as { did: string }).did).slice(0, 256)
        : 'unknown';
    if (serverNonce === undefined) {
      audit('mesh.ws.auth', 'deny', claimed, 'MESH_WS_AUTH_FAILED', { reason: 'nonce already used' });
      close(MESH_WS_CLOSE.AUTH_FAILED, 'MESH_WS_AUTH_FAILED', 'the nonce of this connection was already used');
      return;
    }
    const verdict = evaluateMeshWsAuth({
      frame,
      nonce: serverNonce,
      serverDid: options.serverDid,
      now: now(),
      skewMs: limits.authSkewMs,
    });
    if (!verdict.allow) {
      audit('mesh.ws.auth', 'deny', claimed, verdict.code, { reason: verdict.reason });
      close(MESH_WS_CLOSE.AUTH_FAILED, verdict.code, verdict.reason);
      return;
    }
    did = (frame as { did: string }).did;
    audit('mesh.ws.auth', 'allow', did);
    send({ v: MESH_WS_VERSION, type: 'ready', did });
  }

  function deliver(text: string) {
    // The frame wraps the message in one object: a frame deeper than the cap plus one holds a
    // message deeper than the cap. Refused before parsing (parse, stringify and the schema all
    // recurse); the socket stays open and the refusal is acked in order, like any other.
    const shape = checkJsonText(text, { maxDepth: DEFAULT_MAX_JSON_DEPTH + 1 });
    if (!shape.allow) {
      audit('message.receive', 'deny', did ?? 'unknown', shape.code, { reason: shape.reason });
      const ack: AckFrame = {
        v: MESH_WS_VERSION,
        type: 'ack',
        id: null,
        accepted: false,
        code: shape.code,
        reason: `the message nests deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`,
        ...(shape.hint === undefined ? {} : { hint: shape.hint }),
      };
      chain = chain.then(() => send(ack));
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = messageFrameSchema.safeParse(json);
    if (!parsed.success)
      return refuse(
        MESH_WS_CLOSE.PROTOCOL,
        'MESH_WS_FRAME_INVALID',
        'expected a v1 message frame {v:1,type:"message",message}',
      );
    if (pending >= limits.maxPending)
      return refuse(
        MESH_WS_CLOSE.RATE_LIMITED,
        'MESH_WS_RATE_LIMITED',
        `more than ${limits.maxPending} messages are waiting`,
      );
    // The frame as parsed, not the schema's copy: ingress judges exactly what was sent.
    const message = (json as { message: Record<string, unknown> }).message;
    const id = typeof message.id === 'string' ? message.id.slice(0, 128) : null;
    const remoteDid = did!;
    pending++;
    // In order: acks leave in the order the messages came.
    chain = chain.then(async () => {
      let ack: AckFrame;
      try {
        const result = await options.ingest(JSON.stringify(message), { transport: 'ws', wsRemoteDid: remoteDid });
        ack = result.accepted
          ? { v: MESH_WS_VERSION, type: 'ack', id, accepted: true }
          : {
              v: MESH_WS_VERSION,
              type: 'ack',
              id,
              accepted: false,
              // Middleware may write long reasons; the frame format caps them.
              code: result.decision.code.slice(0, 64),
              reason: result.decision.reason.slice(0, 512),
              ...(result.decision.hint === undefined ? {} : { hint: result.decision.hint.slice(0, 512) }),
            };
      } catch {
        ack = {
          v: MESH_WS_VERSION,
          type: 'ack',
          id,
          accepted: false,
          code: 'MESH_INTERNAL',
          reason: 'the message could not be processed',
        };
      }
      pending--;
      send(ack);
    });
  }

  return {
    start() {
      const challenge: ChallengeFrame = {
        v: MESH_WS_VERSION,
        type: 'challenge',
        nonce: nonce!,
        server_did: options.serverDid,
        expires_in_ms: limits.authTimeoutMs,
      };
      send(challenge);
      authTimer = setTimeout(
        () =>
          refuse(
            MESH_WS_CLOSE.TIMEOUT,
            'MESH_WS_AUTH_TIMEOUT',
            `no handshake answer within ${limits.authTimeoutMs} ms`,
            'mesh.ws.auth',
          ),
        limits.authTimeoutMs,
      );
      authTimer.unref?.();
      touch();
    },
    receive(data, isBinary) {
      if (done) return;
      const size = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
      if (isBinary) return refuse(MESH_WS_CLOSE.UNSUPPORTED_DATA, 'MESH_WS_BINARY', 'frames are JSON text');
      if (size > limits.maxFrameBytes)
        return refuse(
          MESH_WS_CLOSE.TOO_BIG,
          'MESSAGE_TOO_LARGE',
          `frames are limited to ${limits.maxFrameBytes} bytes`,
        );
      if (!frames.take(1) || !bytes.take(size))
        return refuse(MESH_WS_CLOSE.RATE_LIMITED, 'MESH_WS_RATE_LIMITED', 'too many frames or bytes per second');
      // The answer to a challenge is a few hundred bytes; nobody unauthenticated gets to send more.
      if (did === undefined && size > AUTH_FRAME_MAX_BYTES) {
        return refuse(
          MESH_WS_CLOSE.AUTH_FAILED,
          'MESH_WS_AUTH_MALFORMED',
          `the handshake answer is limited to ${AUTH_FRAME_MAX_BYTES} bytes`,
          'mesh.ws.auth',
        );
      }
      touch();
      const text = typeof data === 'string' ? data : data.toString('utf8');
      if (did === undefined) authenticate(text);
      else deliver(text);
    },
    closed() {
      done = true;
      nonce = undefined;
      stopTimers();
    },
    authenticatedDid: () => did,
  };
}

/** A token bucket holding one second of `rate`. */
function bucket(rate: number, now: () => number) {
  let tokens = rate;
  let last = now();
  return {
    take(n: number): boolean {
      const t = now();
      tokens = Math.min(rate, tokens + ((t - last) * rate) / 1000);
      last = t;
      if (tokens < n) return false;
      tokens -= n;
      return true;
    },
  };
}
