import type { AuditEvent, Principal } from '@trust/core';
import type { LogRow } from '@trust/agent-runtime/adf';

/** A value or a promise of it: registries may be synchronous (SQLite) or not. */
export type Awaitable<T> = T | Promise<T>;

/** One agent as the list shows it. */
export interface AgentSummary {
  readonly id: string;
  readonly name: string;
  /** e.g. `stopped`, `idle`, `running`, `waiting-approval`, `error`. */
  readonly state: string;
  readonly description?: string;
  readonly pendingApprovals?: number;
}

/** One turn of the agent loop. `content` is untrusted text (LLM output, tool results). */
export interface LoopTurn {
  readonly seq: number;
  readonly role: 'user' | 'assistant' | 'tool' | 'system';
  readonly content: string;
  readonly time: string;
  readonly tool?: { readonly name: string; readonly args?: unknown; readonly status?: string };
}

/** A human-in-the-loop approval task for a restricted tool call. */
export interface ApprovalTask {
  readonly id: string;
  readonly agent: string;
  readonly tool: string;
  /** The exact arguments the model asked for (untrusted; shown as text). */
  readonly args: unknown;
  readonly reason: string;
  /**
   * One API state per task state, never merged: `pending` (waiting for the owner), `approved`
   * (approved, the tool is running), `completed`, `failed` (e.g. the runtime restarted while it
   * ran), `denied`, `cancelled` (e.g. the runtime restarted before an answer), `queued`.
   */
  readonly status: ApprovalTaskStatus;
  readonly createdAt: string;
  /** The owner's feedback on a denial, or why the task was cancelled. */
  readonly feedback?: string;
  /** Why a failed task failed. */
  readonly error?: string;
}

/** The states of {@link ApprovalTask}. */
export type ApprovalTaskStatus = 'pending' | 'approved' | 'completed' | 'failed' | 'denied' | 'cancelled' | 'queued';

/** One row of the tool access matrix. `lockedWhy` says why the agent cannot change it. */
export interface ToolRow {
  readonly name: string;
  readonly enabled: boolean;
  readonly visible: boolean;
  readonly restricted: boolean;
  readonly locked: boolean;
  readonly lockedWhy?: string;
}

/** The config as the owner sees it: secrets redacted, with the fields the agent may not touch. */
export interface AgentConfigView {
  readonly config: unknown;
  readonly lockedFields: readonly { readonly path: string; readonly why: string }[];
  readonly guardPaths: readonly { readonly path: string; readonly why: string }[];
}

/** A file in the agent's document store. */
export interface AgentFileInfo {
  readonly path: string;
  readonly size: number;
  readonly authorized: boolean;
  readonly protection?: string;
}

/** An inbound or outbound message, with the trust stamps the runtime set after verification. */
export interface MessageView {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly time: string;
  readonly content: string;
  readonly subject?: string;
  readonly status?: string;
  readonly stamps?: Readonly<Record<string, unknown>>;
}

/** Result of verifying an agent's audit hash chain. */
export interface ChainStatus {
  readonly ok: boolean;
  readonly count: number;
  /** Index of the first event that does not verify, when `ok` is false. */
  readonly brokenAt?: number;
  readonly reason?: string;
}

/** What the live stream carries. `data` is JSON-serialisable. */
export interface ControlEvent {
  /**
   * `delta`: a fragment of model text while it streams (`data: { text }`); the final turn follows as `turn`.
   * `log`: a row the runtime added to the agent's log table (`data`: an {@link AgentLogRow}).
   */
  readonly kind: 'approval' | 'task' | 'turn' | 'audit' | 'state' | 'message' | 'delta' | 'log';
  readonly agent: string;
  readonly data: unknown;
}

/** A trigger from outside the owner's console. `source: 'user'` is refused by the server. */
export interface TriggerInput {
  readonly source: string;
  readonly payload?: unknown;
}

/**
 * One open agent, as the control server drives it. Every method but `summary` is optional: a
 * route whose method is missing answers `501 NOT_IMPLEMENTED`, so a registry can grow feature by
 * feature without the server pretending. `by` is always the owner principal of the control API.
 */
export interface ControlAgent {
  readonly id: string;
  summary(): Awaitable<AgentSummary>;
  start?(by: Principal): Awaitable<void>;
  stop?(by: Principal): Awaitable<void>;
  /** Sends an owner chat message and runs the loop until it waits or ends; returns the new turns. */
  send?(text: string, by: Principal): Awaitable<readonly LoopTurn[]>;
  history?(): Awaitable<readonly LoopTurn[]>;
  tasks?(): Awaitable<readonly ApprovalTask[]>;
  approve?(taskId: string, change: { args?: unknown }, by: Principal): Awaitable<ApprovalTask>;
  deny?(taskId: string, change: { feedback?: string }, by: Principal): Awaitable<ApprovalTask>;
  config?(): Awaitable<AgentConfigView>;
  /** Owner update: bypasses the agent's locks, and must be audited by the implementation. */
  updateConfig?(change: { path: string; value: unknown }, by: Principal): Awaitable<AgentConfigView>;
  tools?(): Awaitable<readonly ToolRow[]>;
  updateTool?(
    name: string,
    change: Partial<Omit<ToolRow, 'name' | 'lockedWhy'>>,
    by: Principal,
  ): Awaitable<readonly ToolRow[]>;
  files?(): Awaitable<readonly AgentFileInfo[]>;
  readFile?(path: string): Awaitable<{ path: string; content: string; authorized: boolean }>;
  setAuthorized?(path: string, authorized: boolean, by: Principal): Awaitable<AgentFileInfo>;
  inbox?(): Awaitable<readonly MessageView[]>;
  outbox?(): Awaitable<readonly MessageView[]>;
  audit?(): Awaitable<readonly AuditEvent[]>;
  verifyAudit?(): Awaitable<ChainStatus>;
  trigger?(input: TriggerInput): Awaitable<unknown>;
  /** A file as editable text, with the SHA-256 a save must name (see agent-details.ts). */
  fileText?(path: string): Awaitable<AgentFileText>;
  /** Owner write of a text file; `base` is the SHA-256 the editor read, or null for a new file. Audited. */
  writeFile?(path: string, content: string, base: string | null, by: Principal): Awaitable<AgentFileText>;
  /** Triggers, timers, MCP servers, identity and messaging, read-only. */
  runtimeView?(): Awaitable<AgentRuntimeView>;
  /** The agent's DID (`adf_did`), or null before it has an identity. Cheap: no content hash. */
  did?(): Awaitable<string | null>;
  /** One page of the agent's log table, newest last (see agent-detail-logs.ts). */
  logs?(query: AgentLogQuery): Awaitable<AgentLogPage>;
}

/** Filters of {@link ControlAgent.logs}. Omitted: no filter; `limit` omitted: the default page size. */
export interface AgentLogQuery {
  readonly level?: string;
  /** ISO time: rows written at or after it. */
  readonly since?: string;
  /** Row id: rows older than it (the `next` cursor of the page before). */
  readonly before?: number;
  readonly limit?: number;
}

/** One log row as the API shows it. `message` and `data` are untrusted text, cut to a bounded size. */
export interface AgentLogRow extends Omit<LogRow, 'data' | 'createdAt'> {
  /** The row's data as JSON text, or null. */
  readonly data: string | null;
  readonly time: string;
  /** True when `message` or `data` was cut. */
  readonly truncated: boolean;
}

/** A page of rows, oldest first; `next` is the `before` cursor of the older page, or null at the start. */
export interface AgentLogPage {
  readonly logs: readonly AgentLogRow[];
  readonly next: number | null;
  readonly limit: number;
}

/** A file of the agent as the editor sees it. `editable: false` comes with the code and reason. */
export interface AgentFileText {
  readonly path: string;
  readonly content: string;
  readonly sha256: string;
  readonly size: number;
  readonly protection: string;
  readonly editable: boolean;
  readonly refused?: { readonly code: string; readonly reason: string };
}

/** What drives an agent besides chat, as read from its file. Untrusted strings, shown as text. */
export interface AgentRuntimeView {
  readonly triggers: readonly {
    readonly type: string;
    readonly scope: string;
    readonly lambda?: string;
    readonly filter?: Readonly<Record<string, string>>;
    readonly timing?: string;
  }[];
  readonly timers: readonly {
    readonly id: number;
    readonly schedule: unknown;
    readonly nextWakeAt: string | null;
    readonly runCount: number;
    readonly locked: boolean;
    readonly expired: boolean;
    readonly lambda: string | null;
  }[];
  readonly mcp: readonly {
    readonly name: string;
    readonly transport: 'stdio' | 'http' | 'none';
    readonly target: string;
    readonly restricted: boolean;
    readonly capabilities: readonly string[];
    readonly enabledTools: readonly string[];
    /** What the file decides (configured, no tool enabled, invalid). */
    readonly status: string;
    /**
     * The live connection, from the running agent: `connected`, `failed` (detail: the error),
     * `disconnected`, `not-started` (the runtime has not tried it), or `agent-not-running` (the
     * agent is open without its runtime). `detail` is untrusted text.
     */
    readonly live: {
      readonly state: 'connected' | 'failed' | 'disconnected' | 'not-started' | 'agent-not-running';
      readonly detail: string;
    };
  }[];
  readonly identity: {
    readonly did: string | null;
    readonly ownerDid: string | null;
    readonly review: 'signed' | 'unsigned' | 'signature-invalid';
    readonly contentHash: string;
  };
  readonly messaging: {
    readonly receive: boolean;
    readonly mode: string;
    readonly visibility: string;
    readonly allowList: readonly string[];
    readonly blockList: readonly string[];
  };
}

/**
 * The agents of one workspace, as the control server sees them.
 *
 * @example
 * const agents: ControlAgents = {
 *   list: async () => [],
 *   open: async (id) => {
 *     throw controlError('CONTROL_AGENT_NOT_FOUND', id);
 *   },
 * };
 */
export interface ControlAgents {
  list(): Awaitable<readonly AgentSummary[]>;
  /** Opens (or returns the open) agent; throws `CONTROL_AGENT_NOT_FOUND` for an unknown id. */
  open(id: string): Awaitable<ControlAgent>;
  /** `config` (from a template) is merged over the defaults and validated by the config schema. */
  create?(
    input: { name: string; description?: string; config?: Readonly<Record<string, unknown>> },
    by: Principal,
  ): Awaitable<AgentSummary>;
  /** Live events of every agent; returns the unsubscribe function. */
  subscribe?(listener: (event: ControlEvent) => void): () => void;
}

/** What the plugin inspector shows for one package. Provided by the host (e.g. the CLI). */
export interface PluginReport {
  readonly name: string;
  readonly version?: string;
  /** Where the package was read from (its folder or `.tpkg` name in the workspace). */
  readonly source?: string;
  /** Capabilities first: what the plugin may do, each with its risk level and note. */
  readonly capabilities: readonly {
    readonly name: string;
    readonly risk: 'low' | 'medium' | 'high';
    readonly note?: string;
  }[];
  /**
   * `valid`: signed by a key this workspace trusts (`signer` is its key id); `untrusted-key`:
   * a good signature by a key it does not trust; `invalid`: the signature does not verify (or the
   * package could not be read); `unsigned`. `reason` says why, for the last three.
   */
  readonly signature?: {
    readonly status: 'valid' | 'invalid' | 'unsigned' | 'untrusted-key';
    readonly signer?: string;
    readonly reason?: string;
  };
  /** The component's content digest and size, and the hash of its WIT interface. */
  readonly component?: {
    readonly path: string;
    readonly digest: string;
    readonly size: number;
    readonly interfaceHash: string;
  };
  readonly interface?: string;
  readonly interfaceVersion?: number;
  readonly exports?: readonly string[];
  /** Each import against the grants: `granted`, or what a load would refuse and why. */
  readonly imports?: readonly {
    readonly name: string;
    readonly granted: boolean;
    readonly refused?: string;
    readonly hint?: string;
  }[];
}

/** One sandboxed process run, as the sandbox records it. Provided by the host. */
export interface SandboxRunView {
  readonly id: string;
  readonly command: string;
  readonly policy: unknown;
  readonly exitCode?: number | null;
  readonly violations?: readonly string[];
  readonly egress?: readonly { readonly target: string; readonly decision: 'allow' | 'deny'; readonly rule?: string }[];
  readonly startedAt?: string;
}
