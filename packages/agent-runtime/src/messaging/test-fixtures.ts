import { createMemoryAuditSink } from '@trust/core';
import { createIdentity, type AgentIdentity } from '../identity/did-key.js';
import { createIngress, type InboxMiddleware, type InboxRecord } from './ingress.js';
import { DEFAULT_INGRESS_SETTINGS, type IngressSettings } from './ingress-settings.js';
import { createReplayGuard } from './replay-guard.js';
import { identitySeed } from './seed.js';

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
