import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { deny, type AuditSink } from '@trust/core';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LocalMesh } from '@trust/agent-runtime';
import { MESH_WS_CLOSE, MESH_WS_PREFIX } from '@trust/agent-runtime/messaging';
import { DEFAULT_MESH_WS_LIMITS, type MeshWsLimits } from '@trust/agent-runtime/messaging';
import { createMeshWsSession } from '@trust/agent-runtime/host';
import { evaluateControlRequest, type GuardSettings } from './request-guard.js';

/** Options of the mesh WebSocket endpoint of a control server. */
export interface MeshWsServerOptions {
  /** Open mesh sockets at once, authenticated or not. Default 64; more are refused with 503. */
  readonly maxSockets?: number;
  /** Open mesh sockets from one remote address. Default 16 (matters once LAN is opted in). */
  readonly maxSocketsPerAddress?: number;
  /** Per-connection limits (frame size, rates, deadlines). */
  readonly limits?: Partial<MeshWsLimits>;
  /** Audit sink for agents registered without one. */
  readonly audit?: AuditSink;
}

/** The upgrade handler a control server mounts. */
export interface MeshWsServer {
  /** Takes an upgrade request; answers it (refusal or WebSocket) in every case. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open mesh sockets. */
  size(): number;
  /** Closes every socket with 1001 (going away). */
  close(): void;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  421: 'Misdirected Request',
  503: 'Service Unavailable',
};
const GUARD_STATUS: Record<string, number> = {
  CONTROL_HOST_DUPLICATE: 400,
  CONTROL_HOST_NOT_ALLOWED: 421,
  CONTROL_CROSS_ORIGIN: 403,
  CONTROL_TOKEN_IN_QUERY: 400,
};

function refuseUpgrade(socket: Duplex, status: number, code: string, message: string, hint?: string): void {
  // Flush the answer, then drop the connection (ws does the same for refusals it makes itself).
  socket.once('finish', () => socket.destroy());
  const body = JSON.stringify({ error: hint === undefined ? { code, message } : { code, message, hint } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The WebSocket side of the mesh: `GET /mesh/v1/ws/<did>` upgrades, checked like every other
 * request of the control server (Host allow-list, no credential in the query, same-origin
 * Origin / Sec-Fetch-Site), then capped in number. No owner token: the handshake signature is
 * the credential, and the agent's ingress decides on each message. No compression (a small
 * frame can never inflate past the size cap).
 *
 * @example
 * const meshWs = createMeshWsServer({ mesh, guard: () => settings });
 * httpServer.on('upgrade', (req, socket, head) => meshWs.handleUpgrade(req, socket, head));
 */
export function createMeshWsServer(o: {
  mesh: LocalMesh;
  guard: () => GuardSettings;
  options?: MeshWsServerOptions;
}): MeshWsServer {
  const limits: MeshWsLimits = { ...DEFAULT_MESH_WS_LIMITS, ...o.options?.limits };
  const maxSockets = o.options?.maxSockets ?? 64;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const sockets = new Set<WebSocket>();
  const maxPerAddress = o.options?.maxSocketsPerAddress ?? 16;
  const perAddress = new Map<string, number>();

  return {
    handleUpgrade(req, socket, head) {
      socket.on('error', () => socket.destroy());
      const rawUrl = req.url ?? '/';
      const path = rawUrl.split('?')[0]!;
      if (!path.startsWith(MESH_WS_PREFIX))
        return refuseUpgrade(socket, 404, 'CONTROL_NOT_FOUND', `no WebSocket endpoint at ${path.slice(0, 200)}`);
      const gate = evaluateControlRequest(
        { method: req.method ?? 'GET', url: rawUrl, headers: req.headers, rawHeaders: req.rawHeaders },
        o.guard(),
      );
      if (!gate.allow) return refuseUpgrade(socket, GUARD_STATUS[gate.code] ?? 403, gate.code, gate.reason, gate.hint);
      if (req.method !== 'GET')
        return refuseUpgrade(socket, 405, 'CONTROL_METHOD_NOT_ALLOWED', 'WebSocket upgrades use GET');
      let did: string;
      try {
        did = decodeURIComponent(path.slice(MESH_WS_PREFIX.length));
      } catch {
        return refuseUpgrade(socket, 400, 'CONTROL_PATH_INVALID', 'the DID in the path is not valid percent-encoding');
      }
      const ingest = o.mesh.lookup(did);
      if (ingest === undefined) return refuseUpgrade(socket, 404, 'MESH_NO_SUCH_AGENT', 'no agent with that DID here');
      if (sockets.size >= maxSockets) {
        return refuseUpgrade(
          socket,
          503,
          'MESH_WS_BUSY',
          `this server holds its limit of ${maxSockets} mesh sockets`,
          'try again later',
        );
      }
      const remote = req.socket.remoteAddress ?? 'unknown';
      if ((perAddress.get(remote) ?? 0) >= maxPerAddress) {
        return refuseUpgrade(
          socket,
          503,
          'MESH_WS_BUSY',
          `${remote} holds its limit of ${maxPerAddress} mesh sockets`,
          'reuse an open socket or try again later',
        );
      }
      const audit = o.mesh.auditFor?.(did) ?? o.options?.audit;
      // Without verifyClient, ws completes the upgrade synchronously (so the count above cannot
      // be overtaken), and answers a malformed upgrade (bad key or version) itself.
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.add(ws);
        perAddress.set(remote, (perAddress.get(remote) ?? 0) + 1);
        let counted = true;
        const release = () => {
          if (!counted) return;
          counted = false;
          sockets.delete(ws);
          const left = (perAddress.get(remote) ?? 1) - 1;
          if (left <= 0) perAddress.delete(remote);
          else perAddress.set(remote, left);
        };
        const session = createMeshWsSession({
          serverDid: did,
          // Looked up per message: an agent taken off the mesh stops receiving on open sockets too.
          ingest: (bytes, ctx) => {
            const current = o.mesh.lookup(did);
            if (current === undefined) {
              return Promise.resolve({
                accepted: false,
                decision: deny('MESH_NO_SUCH_AGENT', 'the agent is no longer on this mesh', { rule: 'mesh-ws' }),
              });
            }
            return current(bytes, ctx);
          },
          limits,
          peer: { send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) },
          ...(audit === undefined ? {} : { audit }),
          remote,
        });
        ws.on('message', (data, isBinary) =>
          session.receive(
            Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data),
            isBinary,
          ),
        );
        ws.on('error', (err: Error & { code?: string }) => {
          // ws closes with 1009 itself when a frame passes maxPayload; record why.
          if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
            audit?.record({
              principal: { kind: 'peer', id: session.authenticatedDid() ?? 'unknown' },
              action: 'mesh.ws.close',
              target: did,
              decision: 'deny',
              rule: 'mesh-ws',
              code: 'MESSAGE_TOO_LARGE',
              details: { transport: 'ws', limit: limits.maxFrameBytes, remote },
            });
          }
          session.closed();
        });
        ws.on('close', () => {
          release();
          session.closed();
        });
        session.start();
      });
    },
    size: () => sockets.size,
    close() {
      for (const ws of sockets) {
        ws.close(MESH_WS_CLOSE.GOING_AWAY, 'MESH_WS_SHUTDOWN: the server is closing');
        setTimeout(() => ws.terminate(), 1000).unref();
      }
      sockets.clear();
      perAddress.clear();
    },
  };
}
