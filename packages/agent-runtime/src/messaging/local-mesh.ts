import type { AuditSink } from '@trust/core';
import type { IngestFunction as Ingest } from './ingress.js';

/** What a registration may add besides the ingress. */
export interface LocalMeshEntryOptions {
  /** Where transport events for this agent go (e.g. WebSocket handshakes): its own audit log. */
  readonly audit?: AuditSink;
}

/** The agents this process hosts, by DID. Local delivery calls the same ingress as the network. */
export interface LocalMesh {
  register(did: string, ingest: Ingest, options?: LocalMeshEntryOptions): void;
  unregister(did: string): void;
  lookup(did: string): Ingest | undefined;
  /** The audit sink given at registration, if any. */
  auditFor?(did: string): AuditSink | undefined;
  dids(): string[];
}

/**
 * An in-process registry of agents. A control server given a mesh serves its agents over HTTP
 * and WebSocket; every path ends in the agent's one ingress function.
 *
 * @example
 * const mesh = createLocalMesh();
 * mesh.register(messaging.did, messaging.ingest, { audit: adf.audit });
 */
export function createLocalMesh(): LocalMesh {
  const agents = new Map<string, { ingest: Ingest; audit?: AuditSink }>();
  return {
    register(did, ingest, options = {}) {
      agents.set(did, { ingest, ...(options.audit === undefined ? {} : { audit: options.audit }) });
    },
    unregister(did) {
      agents.delete(did);
    },
    lookup(did) {
      return agents.get(did)?.ingest;
    },
    auditFor(did) {
      return agents.get(did)?.audit;
    },
    dids() {
      return [...agents.keys()];
    },
  };
}
