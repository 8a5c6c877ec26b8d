// The JSON shapes of the control API (see the agent-runtime README). All text fields that come
// from agents, models or the network are untrusted and rendered as text or sanitised markdown.

export interface AgentSummary {
  id: string;
  name: string;
  state: string;
  description?: string;
  pendingApprovals?: number;
}
export interface LoopTurn {
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string;
  time: string;
  tool?: { name: string; args?: unknown; status?: string };
}
export interface ApprovalTask {
  id: string;
  agent: string;
  tool: string;
  args: unknown;
  reason: string;
  status: ApprovalTaskStatus;
  createdAt: string;
  feedback?: string;
  error?: string;
}
/** A task's state as the control API reports it, one to one with the agent file's. */
export type ApprovalTaskStatus = 'pending' | 'approved' | 'completed' | 'failed' | 'denied' | 'cancelled' | 'queued';
export interface ToolRow {
  name: string;
  enabled: boolean;
  visible: boolean;
  restricted: boolean;
  locked: boolean;
  lockedWhy?: string;
}
export interface ConfigView {
  config: unknown;
  lockedFields: { path: string; why: string }[];
  guardPaths: { path: string; why: string }[];
}
export interface AgentFile {
  path: string;
  size: number;
  authorized: boolean;
  protection?: string;
}
export interface MessageView {
  id: string;
  from: string;
  to: string;
  time: string;
  content: string;
  subject?: string;
  status?: string;
  stamps?: Record<string, unknown>;
}
export interface AuditEvent {
  v: 1;
  time: string;
  principal: { kind: string; id: string; agent?: string };
  action: string;
  target: string;
  decision: 'allow' | 'deny';
  rule?: string;
  code?: string;
  details?: Record<string, unknown>;
  prev: string;
  hash: string;
}
export interface ChainStatus {
  ok: boolean;
  count: number;
  brokenAt?: number;
  reason?: string;
}
export interface PluginReport {
  name: string;
  version?: string;
  source?: string;
  capabilities: { name: string; risk: 'low' | 'medium' | 'high'; note?: string }[];
  signature?: { status: 'valid' | 'invalid' | 'unsigned' | 'untrusted-key'; signer?: string; reason?: string };
  component?: { path: string; digest: string; size: number; interfaceHash: string };
  interface?: string;
  interfaceVersion?: number;
  exports?: string[];
  imports?: { name: string; granted: boolean; refused?: string; hint?: string }[];
}
export interface SandboxRun {
  id: string;
  command: string;
  policy: unknown;
  exitCode?: number | null;
  violations?: string[];
  egress?: { target: string; decision: 'allow' | 'deny'; rule?: string }[];
  startedAt?: string;
}
export interface LiveEvent {
  kind: string;
  agent: string;
  data: unknown;
}
export type AuditLogKind = 'agent' | 'plugin' | 'sandbox' | 'egress' | 'control';
/**
 * One row of the audit timeline: an event and the log it belongs to. `hash` is absent for plain (unchained)
 * records.
 */
export interface AuditRow {
  log: string;
  kind: AuditLogKind;
  time: string;
  principal: { kind: string; id: string; agent?: string };
  action: string;
  target: string;
  decision: 'allow' | 'deny';
  rule?: string;
  code?: string;
  details?: Record<string, unknown>;
  hash?: string;
}
/** A log of the timeline; `chain: null` means the log is not hash-chained. */
export interface AuditLogInfo {
  name: string;
  kind: AuditLogKind;
  chain: ChainStatus | null;
  count: number;
}
export interface PolicyProblem {
  code: string;
  path: string;
  message: string;
  hint?: string;
}
export type PolicyValidation =
  | { ok: true; name?: string; sections: string[] }
  | { ok: false; problems: PolicyProblem[] };
export interface PolicyCheck {
  url: string;
  mode: string;
  allow: boolean;
  steps: { step: string; ok: boolean; detail: string }[];
  addresses: string[];
  rule?: string;
  code?: string;
  reason?: string;
  hint?: string;
  problems?: PolicyProblem[];
}
