import { TrustError, isTrustErrorCode, type Principal } from '@trust/core';
import type { MessageSigner } from './compose.js';
import type { AgentMessage } from './message.js';
import {
  MESH_WS_CLOSE,
  MESH_WS_MAX_FRAME_BYTES,
  MESH_WS_PREFIX,
  MESH_WS_VERSION,
  ackFrameSchema,
  challengeFrameSchema,
  readyFrameSchema,
  signMeshWsAuth,
  type AckFrame,
} from './mesh-ws-protocol.js';

/** The slice of a WHATWG WebSocket (undici's, which the egress client returns) the client uses. */
export interface MeshSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'error', listener: (event: unknown) => void): void;
}

/** Opens sockets; the agent's `@trust/egress` client, so its guard and policy decide every connect. */
export interface MeshWsConnector {
  webSocket(url: string, options: { principal: Principal }): Promise<MeshSocket>;
}

export interface MeshWsClientOptions {
  readonly egress: MeshWsConnector;
  readonly principal: Principal;
  /** The sending agent's key; it signs the handshake. */
  readonly signer: MessageSigner;
  /** The agent to reach. The handshake is signed for this DID, whatever the server claims. */
  readonly serverDid: string;
  /** How long the handshake, and each acknowledgement, may take. Default 15 s. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** An authenticated mesh WebSocket to one agent. Acknowledgements come back in send order. */
export interface MeshWsClientSession {
  /** The DID the server confirmed for this socket (the sender's own). */
  readonly did: string;
  /** Sends one message and resolves with the recipient's verdict. */
  send(message: AgentMessage): Promise<AckFrame>;
  close(): void;
}

/** `ws(s)://host:port/mesh/v1/ws/<did>` for a runtime address and a recipient DID. */
export function meshWsUrl(address: string, did: string): string {
  return new URL(MESH_WS_PREFIX + encodeURIComponent(did), address).toString();
}

/** Close codes after which trying again cannot help (the same bytes would be refused again). */
const FINAL_CODES = new Set([
  'MESH_WS_AUTH_FAILED',
  'MESH_WS_AUTH_MALFORMED',
  'MESH_WS_AUTH_STALE',
  'MESH_WS_FRAME_INVALID',
  'MESH_WS_BINARY',
  'MESSAGE_TOO_LARGE',
  'MESH_WS_WRONG_SERVER',
  'MESH_WS_PROTOCOL',
]);

/** True when a mesh WebSocket failure is final rather than transient. */
export function isFinalMeshWsError(code: string): boolean {
  return FINAL_CODES.has(code);
}

/** The error for a closed mesh WebSocket; exported for its test. */
export function closedError(code: number, reason: string): TrustError {
  // The close reason comes from the peer: only a known code it names becomes the error's code.
  const claimed = /^([A-Z][A-Z0-9_]+): /.exec(reason)?.[1];
  const named = isTrustErrorCode(claimed) ? claimed : undefined;
  const errorCode = named ?? (code === MESH_WS_CLOSE.TOO_BIG ? 'MESSAGE_TOO_LARGE' : 'MESH_WS_CLOSED');
  return new TrustError(errorCode, `the mesh WebSocket closed (${code}${reason ? `: ${reason}` : ''})`, {
    hint: errorCode === 'MESH_WS_CLOSED' ? 'the peer may be down or refused the upgrade; delivery retries' : undefined,
  });
}

/**
 * Connects to `<address>/mesh/v1/ws/<serverDid>` through the egress client, answers the server's
 * challenge with a signature over its nonce and both DIDs, and waits for `ready`.
 *
 * @example
 * const session = await openMeshWsSession('ws://127.0.0.1:7385', { egress, principal, signer: identity, serverDid:
 * peerDid });
 * const ack = await session.send(composeMessage(identity, { to: peerDid, payload: { content: 'hi', content_type:
 * 'text/plain' } }));
 * session.close();
 */
export async function openMeshWsSession(address: string, options: MeshWsClientOptions): Promise<MeshWsClientSession> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const socket = await options.egress.webSocket(meshWsUrl(address, options.serverDid), {
    principal: options.principal,
  });
  const waiting: Array<{ resolve: (ack: AckFrame) => void; reject: (err: unknown) => void; timer: NodeJS.Timeout }> =
    [];
  let state: 'challenge' | 'ready' | 'open' | 'closed' = 'challenge';
  let failure: TrustError | undefined;

  return new Promise<MeshWsClientSession>((resolve, reject) => {
    const fail = (err: TrustError, closeSocket: boolean) => {
      if (state === 'closed') return;
      const wasOpen = state === 'open';
      state = 'closed';
      failure = err;
      clearTimeout(handshakeTimer);
      for (const w of waiting.splice(0)) {
        clearTimeout(w.timer);
        w.reject(err);
      }
      if (closeSocket) socket.close(1000, '');
      if (!wasOpen) reject(err);
    };
    const protocolError = (what: string) =>
      fail(
        new TrustError('MESH_WS_PROTOCOL', `the mesh server sent ${what}`, {
          hint: 'the peer does not speak mesh WebSocket v1',
        }),
        true,
      );
    const handshakeTimer = setTimeout(
      () => fail(new TrustError('MESH_WS_TIMEOUT', `no mesh handshake within ${timeoutMs} ms`), true),
      timeoutMs,
    );
    handshakeTimer.unref?.();

    const session: MeshWsClientSession = {
      did: options.signer.did,
      send(message) {
        if (state !== 'open')
          return Promise.reject(failure ?? new TrustError('MESH_WS_CLOSED', 'the mesh WebSocket is closed'));
        const frame = JSON.stringify({ v: MESH_WS_VERSION, type: 'message', message });
        if (Buffer.byteLength(frame) > MESH_WS_MAX_FRAME_BYTES) {
          return Promise.reject(
            new TrustError('MESSAGE_TOO_LARGE', `a mesh frame is limited to ${MESH_WS_MAX_FRAME_BYTES} bytes`, {
              hint: 'send a smaller message or a reference',
            }),
          );
        }
        return new Promise<AckFrame>((ok, no) => {
          const timer = setTimeout(
            () => fail(new TrustError('MESH_WS_TIMEOUT', `no acknowledgement within ${timeoutMs} ms`), true),
            timeoutMs,
          );
          timer.unref?.();
          waiting.push({ resolve: ok, reject: no, timer });
          socket.send(frame);
        });
      },
      close() {
        fail(new TrustError('MESH_WS_CLOSED', 'the mesh WebSocket was closed by this side'), true);
      },
    };

    socket.addEventListener('message', (event: { data: unknown }) => {
      if (state === 'closed') return;
      if (typeof event.data !== 'string') return protocolError('a binary frame');
      let frame: unknown;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return protocolError('a frame that is not JSON');
      }
      if (state === 'challenge') {
        const challenge = challengeFrameSchema.safeParse(frame);
        if (!challenge.success) return protocolError('no challenge');
        if (challenge.data.server_did !== options.serverDid) {
          return fail(
            new TrustError('MESH_WS_WRONG_SERVER', 'the socket answers for another agent than the recipient', {
              hint: 'check the recipient address',
            }),
            true,
          );
        }
        state = 'ready';
        socket.send(
          JSON.stringify(signMeshWsAuth(options.signer, challenge.data.nonce, options.serverDid, options.now)),
        );
        return;
      }
      if (state === 'ready') {
        const ready = readyFrameSchema.safeParse(frame);
        if (!ready.success || ready.data.did !== options.signer.did)
          return protocolError('no ready frame for this DID');
        state = 'open';
        clearTimeout(handshakeTimer);
        resolve(session);
        return;
      }
      const ack = ackFrameSchema.safeParse(frame);
      const next = waiting.shift();
      if (!ack.success || next === undefined) return protocolError('an unexpected frame');
      clearTimeout(next.timer);
      next.resolve(ack.data);
    });
    socket.addEventListener('close', (event: { code: number; reason: string }) =>
      fail(closedError(event.code, event.reason ?? ''), false),
    );
    // An error is always followed by a close event, which carries the code.
    socket.addEventListener('error', () => {});
  });
}
