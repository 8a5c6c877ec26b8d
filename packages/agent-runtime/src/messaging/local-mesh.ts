import type { IngestFunction as Ingest } from './ingress.js';

/** The agents this process hosts, by DID. Local delivery calls the same ingress as the network. */
export interface LocalMesh {
  register(did: string, ingest: Ingest): void;
  unregister(did: string): void;
  lookup(did: string): Ingest | undefined;
  dids(): string[];
}

export function createLocalMesh(): LocalMesh {
  const agents = new Map<string, Ingest>();
  return {
    register(did, ingest) {
      agents.set(did, ingest);
    },
    unregister(did) {
      agents.delete(did);
    },
    lookup(did) {
      return agents.get(did);
    },
    dids() {
      return [...agents.keys()];
    },
  };
}
