// Shapes of the agent detail routes (runtime panels, mesh, templates), as the control API sends them.

export interface RuntimeView {
  triggers: { type: string; scope: string; lambda?: string; filter?: Record<string, string>; timing?: string }[];
  timers: {
    id: number;
    schedule: unknown;
    nextWakeAt: string | null;
    runCount: number;
    locked: boolean;
    expired: boolean;
    lambda: string | null;
  }[];
  mcp: {
    name: string;
    transport: string;
    target: string;
    restricted: boolean;
    capabilities: string[];
    enabledTools: string[];
    status: string;
    /** The live connection, from the running agent (see agent-registry.ts); `detail` is untrusted text. */
    live: { state: 'connected' | 'failed' | 'disconnected' | 'not-started' | 'agent-not-running'; detail: string };
  }[];
  identity: { did: string | null; ownerDid: string | null; review: string; contentHash: string };
  messaging: { receive: boolean; mode: string; visibility: string; allowList: string[]; blockList: string[] };
}

export interface MeshView {
  agents: { id: string; did: string | null }[];
  edges: { from: string; to: string; count: number; last: string }[];
}

export interface TemplateList {
  templates: { id: string; title: string; description: string }[];
  providers: string[];
}

/** One row of an agent's log table. `message` and `data` are untrusted (agent and model text): shown as text only. */
export interface LogRow {
  id: number;
  level: string;
  origin: string | null;
  event: string | null;
  target: string | null;
  message: string;
  data: string | null;
  time: string;
  truncated: boolean;
}

/** A page of `GET /agents/:id/logs`: oldest first; `next` is the cursor of the older page. */
export interface LogPage {
  logs: LogRow[];
  next: number | null;
  limit: number;
}
