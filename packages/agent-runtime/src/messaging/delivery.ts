import type { Principal } from '@trust/core';
import type { MessageSigner } from './compose.js';
import type { LocalMesh } from './local-mesh.js';
import type { AgentMessage } from './message.js';
import { MESH_INBOX_PREFIX } from './mesh-http.js';
import { isFinalMeshWsError, openMeshWsSession, type MeshSocket } from './mesh-ws-client.js';

/** The slice of an egress client delivery needs; every network byte goes through it. */
export interface DeliveryFetch {
  fetch(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string },
    ctx: { principal: Principal },
  ): Promise<{ status: number }>;
  /** Needed for `ws:`/`wss:` addresses (the egress client's `webSocket`). */
  webSocket?(url: string, options: { principal: Principal }): Promise<MeshSocket>;
}

export interface DeliveryResult {
  readonly status: 'delivered' | 'failed';
  readonly attempts: number;
  readonly via: 'local' | 'http' | 'ws';
  readonly statusCode?: number;
  readonly code?: string;
  readonly reason?: string;
}

export interface DeliveryOptions {
  readonly mesh?: LocalMesh;
  readonly egress?: DeliveryFetch;
  readonly principal: Principal;
  /** The sender's key, for the WebSocket handshake (`ws:`/`wss:` addresses). */
  readonly signer?: MessageSigner;
  /** Attempts in all, including the first. Default 4. */
  readonly maxAttempts?: number;
  /** First backoff in ms, doubled each retry, capped at `maxBackoffMs`. Defaults 200 and 5000. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const sleepReal = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Delivers a signed message: to a local agent through its ingress; by POST to
 * `<address>/mesh/v1/inbox/<did>` for an `http(s):` address; over an authenticated mesh
 * WebSocket to `<address>/mesh/v1/ws/<did>` for a `ws(s):` address. Remote delivery always goes
 * through the egress client. Transient failures (network errors, 429, 5xx, dropped sockets) are
 * retried with bounded exponential backoff; a refusal is final.
 *
 * @example
 * const r = await deliverMessage(msg, 'ws://127.0.0.1:7385', { egress, principal, signer: identity });
 * // r.status === 'delivered', r.via === 'ws'
 */
export async function deliverMessage(
  message: AgentMessage,
  address: string | undefined,
  options: DeliveryOptions,
): Promise<DeliveryResult> {
  const local = options.mesh?.lookup(message.to);
  if (local && address === undefined) {
    const result = await local(JSON.stringify(message), { transport: 'local' });
    return result.accepted
      ? { status: 'delivered', attempts: 1, via: 'local' }
      : { status: 'failed', attempts: 1, via: 'local', code: result.decision.code, reason: result.decision.reason };
  }
  if (address === undefined)
    return {
      status: 'failed',
      attempts: 0,
      via: 'local',
      code: 'MESSAGE_NO_ROUTE',
      reason: 'the recipient is not local and no address was given',
    };
  let scheme: string;
  try {
    scheme = new URL(address).protocol;
  } catch {
    return {
      status: 'failed',
      attempts: 0,
      via: 'http',
      code: 'MESSAGE_BAD_ADDRESS',
      reason: 'the address is not a URL',
    };
  }
  if (scheme === 'ws:' || scheme === 'wss:') return deliverOverWebSocket(message, address, options);
  const egress = options.egress;
  if (!egress)
    return {
      status: 'failed',
      attempts: 0,
      via: 'http',
      code: 'MESSAGE_NO_EGRESS',
      reason: 'remote delivery needs an egress client',
    };
  const url = new URL(MESH_INBOX_PREFIX + encodeURIComponent(message.to), address).toString();
  return withRetries(options, 'http', async (attempt) => {
    try {
      const res = await egress.fetch(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) },
        { principal: options.principal },
      );
      if (res.status >= 200 && res.status < 300)
        return {
          result: { status: 'delivered', attempts: attempt, via: 'http', statusCode: res.status },
          retry: false,
        };
      const result: DeliveryResult = {
        status: 'failed',
        attempts: attempt,
        via: 'http',
        statusCode: res.status,
        code: 'MESSAGE_REFUSED',
        reason: `the recipient answered ${res.status}`,
      };
      return { result, retry: res.status === 429 || res.status >= 500 };
    } catch (err) {
      return networkFailure(err, attempt, 'http');
    }
  });
}

/**
 * One attempt per connection: open a mesh WebSocket through the egress client, authenticate,
 * send, wait for the acknowledgement, close. A refusal in the acknowledgement is final.
 */
async function deliverOverWebSocket(
  message: AgentMessage,
  address: string,
  options: DeliveryOptions,
): Promise<DeliveryResult> {
  const egress = options.egress;
  if (!egress?.webSocket)
    return {
      status: 'failed',
      attempts: 0,
      via: 'ws',
      code: 'MESSAGE_NO_EGRESS',
      reason: 'WebSocket delivery needs an egress client with webSocket',
    };
  if (!options.signer)
    return {
      status: 'failed',
      attempts: 0,
      via: 'ws',
      code: 'MESSAGE_NO_SIGNER',
      reason: 'WebSocket delivery needs the sender key for the handshake',
    };
  const signer = options.signer;
  const connector = { webSocket: (url: string, o: { principal: Principal }) => egress.webSocket!(url, o) };
  return withRetries(options, 'ws', async (attempt) => {
    let session: Awaited<ReturnType<typeof openMeshWsSession>> | undefined;
    try {
      session = await openMeshWsSession(address, {
        egress: connector,
        principal: options.principal,
        signer,
        serverDid: message.to,
      });
      const ack = await session.send(message);
      if (ack.accepted) return { result: { status: 'delivered', attempts: attempt, via: 'ws' }, retry: false };
      return {
        result: {
          status: 'failed',
          attempts: attempt,
          via: 'ws',
          code: ack.code ?? 'MESSAGE_REFUSED',
          reason: ack.reason ?? 'the recipient refused the message',
        },
        retry: false,
      };
    } catch (err) {
      const failed = networkFailure(err, attempt, 'ws');
      return isFinalMeshWsError(failed.result.code ?? '') ? { ...failed, retry: false } : failed;
    } finally {
      session?.close();
    }
  });
}

type Attempt = (attempt: number) => Promise<{ result: DeliveryResult; retry: boolean }>;

/** Bounded attempts with exponential backoff; stops at the first success or final failure. */
async function withRetries(
  options: DeliveryOptions,
  via: DeliveryResult['via'],
  run: Attempt,
): Promise<DeliveryResult> {
  const max = Math.max(1, options.maxAttempts ?? 4);
  const sleep = options.sleep ?? sleepReal;
  let backoff = options.backoffMs ?? 200;
  let last: DeliveryResult = { status: 'failed', attempts: 0, via };
  for (let attempt = 1; attempt <= max; attempt++) {
    const { result, retry } = await run(attempt);
    last = result;
    if (result.status === 'delivered' || !retry) return result;
    if (attempt < max) {
      await sleep(backoff);
      backoff = Math.min(backoff * 2, options.maxBackoffMs ?? 5000);
    }
  }
  return last;
}

function networkFailure(
  err: unknown,
  attempt: number,
  via: DeliveryResult['via'],
): { result: DeliveryResult; retry: boolean } {
  const code = (err as { code?: unknown }).code;
  const result: DeliveryResult = {
    status: 'failed',
    attempts: attempt,
    via,
    code: typeof code === 'string' ? code : 'MESSAGE_NETWORK',
    reason: 'delivery failed',
  };
  // An egress denial will not change on retry.
  return { result, retry: !(typeof code === 'string' && code.startsWith('EGRESS_') && code !== 'EGRESS_TIMEOUT') };
}
