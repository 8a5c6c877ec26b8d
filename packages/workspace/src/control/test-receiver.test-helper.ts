// Test-only: a receiving agent (identity, ingress, inbox) for the mesh tests. Not exported.
import { createMemoryAuditSink } from '@trust/core';
import { type AgentIdentity, createIdentity } from '@trust/agent-runtime';
import {
  DEFAULT_INGRESS_SETTINGS,
  type InboxMiddleware,
  type InboxRecord,
  type IngressSettings,
  createIngress,
  createReplayGuard,
} from '@trust/agent-runtime/messaging';

// The 32-byte Ed25519 seed of an identity (the tail of its PKCS#8 export), as the runtime derives it.
const identitySeed = (identity: AgentIdentity): Uint8Array => {
  const der = identity.exportPkcs8();
  return new Uint8Array(der.subarray(der.length - 32));
};

/** A receiving agent for tests: its identity, its ingress, and what it stored. */
export function createTestReceiver(
  settings: Partial<IngressSettings> = {},
  middleware: InboxMiddleware[] = [],
  clock = { now: Date.now() },
) {
  const identity: AgentIdentity = createIdentity();
  const inbox: InboxRecord[] = [];
  const audit = createMemoryAuditSink();
  const replay = createReplayGuard({ now: () => clock.now });
  const ingest = createIngress({
    self: { did: identity.did, seed: () => identitySeed(identity) },
    settings: () => ({ ...DEFAULT_INGRESS_SETTINGS, receive: true, ...settings }),
    replay,
    now: () => clock.now,
    store: (r) => inbox.push(r),
    middleware,
    audit,
  });
  return { identity, inbox, ingest, clock, audit, replay };
}
