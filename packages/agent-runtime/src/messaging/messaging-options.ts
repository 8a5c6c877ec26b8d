import { z } from 'zod';
import { AgentIdentity } from '../identity/did-key.js';
import { count, fn, withMethods } from '../options/strict-options.js';

const adf = withMethods('the agent\'s open .adf file, e.g. createAdf("alice.adf")', 'close');
const audit = withMethods('audit sink, e.g. createMemoryAuditSink()', 'record');
const middleware = z
  .array(fn('an inbox middleware, e.g. async (message) => ({ action: "accept" })'))
  .optional()
  .describe('inbox middleware run in order, e.g. [async (message) => ({ action: "accept" })]; [] or absent: none');

/** The strict schema of `createAgentMessaging`'s options, checked once at the boundary. */
export const agentMessagingOptionsSchema = z
  .object({
    adf,
    identity: z.instanceof(AgentIdentity).describe("the agent's identity, e.g. createIdentity()"),
    mesh: withMethods('the in-process mesh, e.g. createLocalMesh()', 'register', 'lookup').optional(),
    egress: withMethods(
      'the @trust/egress client for network delivery, e.g. createEgressClient({ policy })',
      'fetch',
    ).optional(),
    middleware,
    outboxMiddleware: z
      .array(fn('an outbox middleware, e.g. async (draft) => ({ action: "accept" })'))
      .optional()
      .describe('outbox middleware run in order before signing, e.g. [async (draft) => ({ action: "accept" })]'),
    audit: audit.optional(),
    now: fn('clock in ms, e.g. Date.now').optional(),
    sleep: fn('waits between delivery retries, e.g. (ms) => new Promise((r) => setTimeout(r, ms))').optional(),
  })
  .strict()
  .describe('createAgentMessaging options, e.g. { adf, identity, mesh }');

/** The strict schema of `createIngress`'s options, checked once at the boundary. */
export const ingressOptionsSchema = z
  .object({
    self: z
      .object({
        did: z.string().startsWith('did:').describe("the receiving agent's DID, e.g. identity.did"),
        seed: fn("the agent's X25519 seed for encrypted payloads, e.g. () => identitySeed(identity)").optional(),
      })
      .strict()
      .describe('the receiving agent, e.g. { did: identity.did }'),
    settings: fn('reads the ingress settings per message, e.g. () => DEFAULT_INGRESS_SETTINGS'),
    verify: fn('verifies a DID signature, e.g. verifyDidSignature').optional(),
    replay: withMethods('the replay guard, e.g. createReplayGuard({ now: Date.now })', 'has', 'remember', 'forget'),
    now: fn('clock in ms, e.g. Date.now'),
    store: fn('stores an accepted message, e.g. (record) => adf.inbox.add(record)'),
    middleware,
    audit: audit.optional(),
  })
  .strict()
  .describe('createIngress options, e.g. { self, settings, replay, now, store }');

/** The strict schema of `createReplayGuard`'s options, checked once at the boundary. */
export const replayGuardOptionsSchema = z
  .object({
    now: fn('clock in ms, e.g. Date.now'),
    knownElsewhere: fn('true when an id was already stored, e.g. (id) => inboxHas(id)').optional(),
    maxEntries: count('ids remembered at most, e.g. 100000').optional(),
  })
  .strict()
  .describe('createReplayGuard options, e.g. { now: Date.now }');

/** The strict schema of a partial `MeshWsLimits` (also the control server's `meshWebSocket.limits`). */
export const meshWsLimitsSchema = z
  .object({
    maxFrameBytes: count('largest frame in bytes, e.g. 1048576').optional(),
    framesPerSecond: count('frames per second, e.g. 200').optional(),
    bytesPerSecond: count('bytes per second, e.g. 4194304').optional(),
    maxPending: count('messages waiting for ingress, e.g. 32').optional(),
    authTimeoutMs: count('time to answer the challenge in ms, e.g. 10000').optional(),
    idleTimeoutMs: count('idle time before the socket is closed in ms, e.g. 120000').optional(),
    authSkewMs: count('accepted handshake clock skew in ms, e.g. 60000').optional(),
  })
  .strict();

/** The strict schema of `createMeshWsSession`'s options, checked once per connection. */
export const meshWsSessionOptionsSchema = z
  .object({
    serverDid: z.string().startsWith('did:').describe('the agent this socket delivers to, e.g. identity.did'),
    ingest: fn("that agent's ingress, e.g. messaging.ingest"),
    peer: withMethods('the socket, e.g. { send: (t) => ws.send(t), close: (c, r) => ws.close(c, r) }', 'send', 'close'),
    audit: audit.optional(),
    remote: z.string().optional().describe('the remote address for the audit record, e.g. "127.0.0.1"'),
    limits: meshWsLimitsSchema.optional().describe('connection limits, e.g. { maxFrameBytes: 1048576 }'),
    now: fn('clock in ms, e.g. Date.now').optional(),
    nonce: fn('challenge nonce source, e.g. createMeshWsNonce').optional(),
  })
  .strict()
  .describe('createMeshWsSession options, e.g. { serverDid, ingest, peer }');
