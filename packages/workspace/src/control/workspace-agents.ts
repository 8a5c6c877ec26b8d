import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isTrustError, type Principal } from '@trust/core';
import { createAdf, openAdf, type AdfFile } from '@trust/agent-runtime';
import { DEFAULT_LOCKED_PATHS, defaultAgentConfig, effectiveToolDeclarations } from '@trust/agent-runtime';
import { GUARD_PATHS, cloneConfig } from '@trust/agent-runtime/host';
import { redactConfig } from '@trust/agent-runtime';
import type { TaskStatus } from '@trust/agent-runtime/adf';
import type { McpServerLiveState } from '@trust/agent-runtime/mcp';
import type {
  AgentConfigView,
  ApprovalTask,
  ApprovalTaskStatus,
  ControlAgent,
  ControlAgents,
  ControlEvent,
  MessageView,
  ToolRow,
} from './agent-registry.js';
import { describeApprovalReason } from './approval-reason.js';
import { setConfigPath } from './config-path.js';
import { controlError } from './control-error.js';
import { loopTurns } from './loop-turns.js';
import { adfDetails } from './agent-details.js';
import { adfLogs } from './agent-detail-logs.js';
import { workspaceAgentsOptionsSchema } from './control-options.js';
import { checkOptions } from './strict-options.js';

/** What a running agent adds to its file: the loop and the approval desk. */
export type AgentRuntimeHooks = Pick<ControlAgent, 'start' | 'stop' | 'send' | 'approve' | 'deny' | 'trigger'> & {
  /** e.g. `running`, `waiting-approval`; omitted: `idle`. */
  state?(): string;
  /** The live state of the MCP servers the runtime tried (see `Agent.mcpStatus`); undefined: not running. */
  mcpStatus?(): readonly McpServerLiveState[] | undefined;
};

/** An agent file opened together with its runtime. */
export interface OpenedAgent {
  readonly adf: AdfFile;
  readonly hooks: AgentRuntimeHooks;
  close(): void;
}

/** Options of {@link createWorkspaceAgents}. */
export interface WorkspaceAgentsOptions {
  /** Folder of `<id>.adf` files. New agents start from the default config (built-in tools with their default flags). */
  readonly dir: string;
  /**
   * Opens an agent file with its runtime (loop, approvals), e.g. {@link createAgentOpener}.
   * Omitted: the file is opened alone, and chat send, approve, deny, start, stop and trigger
   * answer `501 NOT_IMPLEMENTED`; everything read from the file, and owner changes to config,
   * tools and files, still work.
   */
  readonly open?: (path: string, id: string, emit: (event: ControlEvent) => void) => OpenedAgent;
  readonly clock?: () => Date;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Task state in the file → task state in the API, one to one: no two file states share an API
 * state, so a task that failed (or was cancelled) after its approval is never shown as approved.
 */
export const TASK_STATUS_VIEW: Readonly<Record<TaskStatus, ApprovalTaskStatus>> = Object.freeze({
  pending_approval: 'pending',
  running: 'approved',
  completed: 'completed',
  failed: 'failed',
  denied: 'denied',
  cancelled: 'cancelled',
  pending: 'queued',
});
const GUARD_WHY = 'guard path: decides what needs approval; only the owner console changes it, never the agent';

/**
 * The agents of a workspace folder, for {@link createControlServer}. Each `<id>.adf` file is one
 * agent, opened once and kept open. Every owner change is audited in the agent's own chain.
 *
 * @example
 * const server = await createControlServer({ agents: createWorkspaceAgents({ dir: 'agents' }), tokenFile });
 */
export function createWorkspaceAgents(options: WorkspaceAgentsOptions): ControlAgents & { close(): void } {
  checkOptions('createWorkspaceAgents', workspaceAgentsOptionsSchema, options);
  const open = new Map<string, ControlAgent & { adf: AdfFile; close(): void }>();
  const listeners = new Set<(e: ControlEvent) => void>();
  const emit = (e: ControlEvent) => {
    for (const l of listeners) l(e);
  };
  const clockOpt = options.clock === undefined ? {} : { clock: options.clock };

  const get = (id: string) => {
    if (!ID.test(id)) throw controlError('CONTROL_AGENT_NOT_FOUND', `no agent "${id}"`);
    const cached = open.get(id);
    if (cached) return cached;
    const path = join(options.dir, `${id}.adf`);
    let opened: { adf: AdfFile; hooks?: AgentRuntimeHooks; close(): void };
    try {
      if (options.open) opened = options.open(path, id, emit);
      else {
        const adf = openAdf(path, { trust: 'owned', ...clockOpt });
        opened = { adf, close: () => adf.close() };
      }
    } catch (e) {
      if (isTrustError(e, 'ADF_NOT_FOUND'))
        throw controlError(
          'CONTROL_AGENT_NOT_FOUND',
          `no agent "${id}" in this workspace`,
          'list agents with GET /api/v1/agents',
        );
      throw e;
    }
    const agent = { ...fromAdf(id, opened.adf, emit, opened.hooks), close: () => opened.close() };
    open.set(id, agent);
    return agent;
  };
  const ids = () =>
    readdirSync(options.dir)
      .filter((f) => f.endsWith('.adf'))
      .map((f) => f.slice(0, -4))
      .filter((id) => ID.test(id))
      .sort();

  return {
    list: () => ids().map((id) => get(id).summary() as ReturnType<typeof summaryOf>),
    open: (id) => get(id),
    create(input, by) {
      if (ids().includes(input.name))
        throw controlError('CONTROL_CONFLICT', `agent "${input.name}" already exists`, 'pick another name');
      const adf = createAdf(join(options.dir, `${input.name}.adf`), {
        template: {
          ...defaultAgentConfig({ name: input.name }),
          description: input.description ?? '',
          ...input.config,
        },
        ...clockOpt,
      });
      adf.audit.record({ principal: by, action: 'agent.create', target: input.name, decision: 'allow', rule: 'owner' });
      adf.close();
      return get(input.name).summary() as ReturnType<typeof summaryOf>;
    },
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close() {
      for (const a of open.values()) a.close();
      open.clear();
    },
  };
}

function summaryOf(id: string, adf: AdfFile, hooks: AgentRuntimeHooks | undefined) {
  const c = adf.config();
  return {
    id,
    name: c.name,
    state: hooks?.state?.() ?? (hooks ? 'idle' : 'stopped'),
    description: c.description,
    pendingApprovals: adf.tasks.list({ status: 'pending_approval' }).length,
  };
}

function fromAdf(
  id: string,
  adf: AdfFile,
  emit: (e: ControlEvent) => void,
  hooks: AgentRuntimeHooks | undefined,
): ControlAgent & { adf: AdfFile } {
  const audited = (by: Principal, action: string, target: string, details?: Record<string, unknown>) => {
    const event = adf.audit.record({
      principal: { ...by, agent: id },
      action,
      target,
      decision: 'allow',
      rule: 'owner-bypasses-locks',
      ...(details ? { details } : {}),
    });
    emit({ kind: 'audit', agent: id, data: event });
  };
  const configView = (): AgentConfigView => {
    const c = adf.config();
    return {
      config: redactConfig(c),
      lockedFields: [
        ...DEFAULT_LOCKED_PATHS.map((path) => ({
          path,
          why: 'locked in code for every agent: changing it needs a one-time owner approval',
        })),
        ...c.locked_fields.map((path) => ({ path, why: 'in locked_fields: the agent may only ask the owner' })),
      ],
      guardPaths: GUARD_PATHS.map((path) => ({ path, why: GUARD_WHY })),
    };
  };
  const tools = (): ToolRow[] => {
    const c = adf.config();
    const lockedByField = (name: string) =>
      c.locked_fields.some((f) => f === 'tools' || f === `tools.${name}` || f.startsWith(`tools.${name}.`));
    return [...effectiveToolDeclarations(c).values()].map((d) => {
      const locked = d.locked || lockedByField(d.name);
      const row = { name: d.name, enabled: d.enabled, visible: d.visible, restricted: d.restricted, locked };
      return locked
        ? {
            ...row,
            lockedWhy: d.locked
              ? 'declaration is locked: the agent cannot change it'
              : 'in locked_fields: the agent may only ask',
          }
        : row;
    });
  };
  const task = (t: ReturnType<AdfFile['tasks']['list']>[number]): ApprovalTask => ({
    id: t.id,
    agent: id,
    tool: t.tool,
    args: t.args,
    reason: describeApprovalReason(t.tool, t.approvalMeta),
    status: TASK_STATUS_VIEW[t.status],
    createdAt: t.createdAt,
    ...(t.error && (t.status === 'denied' || t.status === 'cancelled') ? { feedback: t.error } : {}),
    ...(t.error && t.status === 'failed' ? { error: t.error } : {}),
  });
  const mail = (box: AdfFile['inbox']): MessageView[] =>
    box.list({ limit: 200 }).map((m) => ({
      id: m.id,
      from: m.from ?? '',
      to: m.to ?? '',
      time: m.at,
      content: m.content,
      status: m.status,
      stamps: m.meta,
      ...(m.subject ? { subject: m.subject } : {}),
    }));

  const agent: ControlAgent & { adf: AdfFile } = {
    id,
    adf,
    summary: () => summaryOf(id, adf, hooks),
    history: () => loopTurns(adf.loop.list()).slice(-500),
    tasks: () =>
      adf.tasks
        .list()
        .filter((t) => t.requiresAuthorization)
        .map(task),
    config: configView,
    updateConfig(change, by) {
      const doc = cloneConfig(adf.config());
      const path = setConfigPath(doc, change.path, change.value);
      adf.setConfig(doc);
      audited(by, 'config.update', path);
      return configView();
    },
    tools,
    updateTool(name, change, by) {
      const doc = cloneConfig(adf.config()) as { tools: Record<string, unknown>[] };
      const decls = doc.tools.filter((d) => d.name === name);
      if (decls.length === 0) doc.tools.push({ name, enabled: false, visible: false, ...change });
      // Duplicates are sticky for restricted/locked, so the owner's change goes to every one of them.
      for (const d of decls) Object.assign(d, change);
      adf.setConfig(doc);
      audited(by, 'config.tool', name, { ...change });
      return tools();
    },
    files: () =>
      adf.files.list().map((f) => ({ path: f.path, size: f.size, authorized: f.authorized, protection: f.protection })),
    readFile(path) {
      const f = adf.files.read(path);
      if (f === undefined) throw controlError('CONTROL_NOT_FOUND', `no file "${path}"`);
      return { path: f.path, content: f.content.subarray(0, 512 * 1024).toString('utf8'), authorized: f.authorized };
    },
    setAuthorized(path, authorized, by) {
      if (adf.files.read(path) === undefined) throw controlError('CONTROL_NOT_FOUND', `no file "${path}"`);
      adf.files.setAuthorized(path, authorized, 'owner');
      audited(by, 'file.authorize', path, { authorized });
      const f = adf.files.list().find((x) => x.path === path)!;
      return { path: f.path, size: f.size, authorized: f.authorized, protection: f.protection };
    },
    inbox: () => mail(adf.inbox),
    outbox: () => mail(adf.outbox),
    audit: () => adf.audit.list(),
    ...adfDetails(adf, audited, () => hooks?.mcpStatus?.()),
    // The Logs tab; each new row also goes out as a live `log` event (the tail lives as long as the file).
    logs: adfLogs(adf, (row) => emit({ kind: 'log', agent: id, data: row })).logs,
    verifyAudit() {
      const r = adf.audit.verify();
      return r.ok
        ? { ok: true, count: r.count }
        : { ok: false, count: adf.audit.list().length, brokenAt: r.index, reason: r.reason };
    },
  };
  if (hooks) {
    for (const k of ['start', 'stop', 'send', 'approve', 'deny', 'trigger'] as const) {
      if (hooks[k] !== undefined) (agent as unknown as Record<string, unknown>)[k] = hooks[k];
    }
  }
  return agent;
}
