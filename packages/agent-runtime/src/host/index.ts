// `@trust/agent-runtime/host`: the building blocks a host that serves agents (a control server, a
// mesh endpoint) composes and that no agent needs: the config's guard paths and deep copy, the
// trigger source check, the mesh WebSocket session and the option schemas a host's own strict
// options embed. Nothing here opens a plugin or a sandbox run: that is the host's business.
export { cloneConfig } from '../config/agent-config.js';
export { GUARD_PATHS } from '../config/config-update.js';
export { formatLoopNote } from '../loop/loop-history.js';
export { evaluateTriggerSource } from '../triggers/runtime-events.js';
export { triggerLimitsSchema } from '../triggers/trigger-options.js';
export { meshWsLimitsSchema } from '../messaging/messaging-options.js';
export { createMeshWsSession } from '../messaging/mesh-ws-session.js';
export type { MeshWsSession, MeshWsSessionOptions } from '../messaging/mesh-ws-session.js';
export { answerAndDrain } from '../messaging/answer-and-drain.js';
export { envelopeSigningBytes } from '../messaging/signing-bytes.js';
