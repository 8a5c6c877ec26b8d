// `@trust/agent-runtime/messaging`: signed messages, the one ingress path, delivery and the mesh
// transports (local, HTTP handler, WebSocket protocol).
export { composeMessage } from './compose.js';
export type { ComposeOptions, MessageSigner } from './compose.js';
export { deliverMessage } from './delivery.js';
export type { DeliveryFetch, DeliveryOptions, DeliveryResult } from './delivery.js';
export { ENCRYPTED_CONTENT_TYPE, decryptPayload, encryptPayload } from './encryption.js';
export { createIngress } from './ingress.js';
export type {
  DidVerifier,
  InboxMiddleware,
  InboxRecord,
  IngestFunction,
  IngressContext,
  IngressOptions,
  IngressResult,
} from './ingress.js';
export { DEFAULT_INGRESS_SETTINGS } from './ingress-settings.js';
export type { IngressSettings } from './ingress-settings.js';
export { createLocalMesh } from './local-mesh.js';
export type { LocalMesh, LocalMeshEntryOptions } from './local-mesh.js';
export {
  MAX_MESSAGE_BYTES,
  MESSAGE_VERSION,
  RESERVED_ALIASES,
  TRUST_STAMPS,
  messageSchema,
  stripTrustStamps,
} from './message.js';
export type { AgentMessage, MessageAttachment, MessagePayload, TrustStamp } from './message.js';
export { MESH_INBOX_PREFIX, handleMeshRequest } from './mesh-http.js';
export { createReplayGuard } from './replay-guard.js';
export type { ReplayGuard } from './replay-guard.js';
export { createAgentMessaging, ingressSettingsFromConfig } from './agent-messaging.js';
export type {
  AgentMessaging,
  AgentMessagingOptions,
  OutboundDraft,
  OutboxMiddleware,
  SendRequest,
} from './agent-messaging.js';
export { createConfigMiddleware } from './config-middleware.js';
export type { ConfigMiddleware } from './config-middleware.js';
export { openMeshWsSession } from './mesh-ws-client.js';
export type { MeshSocket, MeshWsClientOptions, MeshWsClientSession, MeshWsConnector } from './mesh-ws-client.js';
export {
  MESH_WS_CLOSE,
  MESH_WS_PREFIX,
  MESH_WS_VERSION,
  evaluateMeshWsAuth,
  signMeshWsAuth,
} from './mesh-ws-protocol.js';
export type { AckFrame } from './mesh-ws-protocol.js';
export { DEFAULT_MESH_WS_LIMITS } from './mesh-ws-session.js';
export type { MeshWsLimits } from './mesh-ws-session.js';
