import { TrustError } from '@trust/core';
import type { AdfFile } from '@trust/agent-runtime';
import type { Approver } from '@trust/agent-runtime';
import { openAgent, type Agent, type AgentMcpOptions, type OpenAgentOptions } from '@trust/agent-runtime';
import type { ApprovalTask, ControlEvent } from './agent-registry.js';
import { describeApprovalReason } from './approval-reason.js';
import { controlError } from './control-error.js';
import { loopTurns } from './loop-turns.js';
import { withTextDeltas } from './text-deltas.js';
import type { AgentRuntimeHooks, OpenedAgent } from './workspace-agents.js';
import { agentOpenerOptionsSchema } from './control-options.js';
import { checkOptions } from './strict-options.js';

/** Options of {@link createAgentOpener}: what {@link openAgent} needs, per agent id. */
export interface AgentOpenerOptions {
  /** The model provider of each agent (e.g. a scripted provider in the demo). */
  readonly provider: (id: string) => OpenAgentOptions['provider'];
  /** Egress clients of each agent; omitted: the agent has no sys_fetch/ws tools. */
  readonly egress?: (id: string) => OpenAgentOptions['egress'];
  readonly clock?: () => Date;
  readonly maxTurns?: number;
  /** The timer clock's scheduler, armed by `POST …/start` (default: Node's timers, unref'd). */
  readonly scheduler?: OpenAgentOptions['scheduler'];
  /** Bounds on trigger firings. */
  readonly triggerLimits?: OpenAgentOptions['triggerLimits'];
  /**
   * How each agent's MCP servers are placed and sandboxed; given, `POST …/start` connects them
   * (a failure is recorded, logged and shown in the MCP panel; the agent still starts). Omitted:
   * MCP servers are not started by the control API.
   */
  readonly mcp?: (id: string) => AgentMcpOptions;
  /**
   * The keys agents' identities are sealed to: each agent opens with its signing key (an owned file
   * without an identity gets one) and `get_identity`/`set_identity`. Omitted: agents run without one.
   */
  readonly identityKeys?: OpenAgentOptions['identityKeys'];
  /** The workspace's mesh: with identities, `msg_send` signs and delivers, inbound mail runs the ingress. */
  readonly mesh?: OpenAgentOptions['mesh'];
}

/**
 * Opens each workspace agent with the real loop and gate, with the owner's approvals coming from
 * the control API: a restricted call waits (as a task in `adf_tasks`) until the studio or the CLI
 * approves or denies it. Chat send returns as soon as the loop ends its turn or starts waiting for
 * an approval; the rest of the activation runs on and streams its events.
 *
 * @example
 * const agents = createWorkspaceAgents({
 *   dir,
 *   open: createAgentOpener({ provider: () => createScriptedProvider(script) }),
 * });
 */
export function createAgentOpener(
  options: AgentOpenerOptions,
): (path: string, id: string, emit: (e: ControlEvent) => void) => OpenedAgent {
  checkOptions('createAgentOpener', agentOpenerOptionsSchema, options);
  return (path, id, emit) => {
    let onWaiting: (() => void) | undefined;
    // The approver only waits: the answer comes from the control API through gate.resolveTask,
    // which settles the task and aborts this request's signal.
    const approver: Approver = {
      request: (req) =>
        new Promise((_resolve, reject) => {
          req.signal.addEventListener(
            'abort',
            () => reject(new TrustError('TASK_RESOLVED_ELSEWHERE', 'resolved through the control API')),
            { once: true },
          );
        }),
    };
    let agent: Agent | undefined;
    const taskView = (taskId: string): ApprovalTask | undefined => {
      const t = agent?.adf.tasks.get(taskId);
      if (t === undefined) return undefined;
      return {
        id: t.id,
        agent: id,
        tool: t.tool,
        args: t.args,
        reason: describeApprovalReason(t.tool, t.approvalMeta),
        status: 'pending',
        createdAt: t.createdAt,
      };
    };
    agent = openAgent(path, {
      // Streamed text reaches the studio as `delta` events while the model answers.
      provider: withTextDeltas(options.provider(id), (text) => emit({ kind: 'delta', agent: id, data: { text } })),
      approver,
      ...(options.egress?.(id) ? { egress: options.egress(id)! } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
      ...(options.triggerLimits ? { triggerLimits: options.triggerLimits } : {}),
      ...(options.identityKeys ? { identityKeys: options.identityKeys } : {}),
      ...(options.mesh ? { mesh: options.mesh } : {}),
      onEvent: (e) => {
        if (e.kind === 'approval') {
          emit({ kind: 'approval', agent: id, data: taskView(e.taskId) ?? { id: e.taskId, tool: e.tool } });
          onWaiting?.();
        } else {
          emit({ kind: 'turn', agent: id, data: e });
        }
      },
    });
    const a = agent;
    const STATES: Record<string, string> = {
      awaiting_approval: 'waiting-approval',
      awaiting_answer: 'waiting-answer',
      running_tool: 'running',
      thinking: 'running',
    };
    const hooks: AgentRuntimeHooks = {
      state: () => STATES[a.state()] ?? a.state(),
      // Not started and nothing connected: the panel says the agent is not running.
      mcpStatus: () => (a.started() || a.mcpStatus().length > 0 ? a.mcpStatus() : undefined),
      async send(text) {
        if (a.state() !== 'idle')
          throw controlError(
            'CONTROL_CONFLICT',
            `agent "${id}" is busy (${a.state()})`,
            'wait for it, answer its approval, or stop it',
          );
        const before = a.adf.loop.list().at(-1)?.seq ?? -1;
        const waiting = new Promise<void>((resolve) => (onWaiting = resolve));
        const run = a.send(text).then(
          () => emit({ kind: 'state', agent: id, data: { state: 'idle' } }),
          (err: unknown) =>
            emit({ kind: 'state', agent: id, data: { state: 'error', code: (err as TrustError).code ?? 'ERROR' } }),
        );
        await Promise.race([run, waiting]);
        onWaiting = undefined;
        return loopTurns(a.adf.loop.list({ afterSeq: before }));
      },
      approve(taskId, change) {
        const view = taskView(taskId);
        a.gate.resolveTask(
          taskId,
          change.args === undefined ? { decision: 'approve' } : { decision: 'approve', args: change.args },
          'owner',
        );
        return {
          ...(view ?? { id: taskId, agent: id, tool: '', args: null, reason: '', createdAt: '' }),
          status: 'approved',
          ...(change.args === undefined ? {} : { args: change.args }),
        };
      },
      deny(taskId, change) {
        const view = taskView(taskId);
        a.gate.resolveTask(
          taskId,
          change.feedback === undefined ? { decision: 'deny' } : { decision: 'deny', feedback: change.feedback },
          'owner',
        );
        return {
          ...(view ?? { id: taskId, agent: id, tool: '', args: null, reason: '', createdAt: '' }),
          status: 'denied',
          ...(change.feedback === undefined ? {} : { feedback: change.feedback }),
        };
      },
      // Stop disarms the timer clock and aborts the running activation; start arms the clock,
      // fires on_startup triggers, and continues pending work.
      stop() {
        a.stop();
      },
      async start() {
        const first = !a.started();
        await a.start();
        // The outcome of each server is kept in a.mcpStatus() and the agent's log.
        if (first && options.mcp) await a.connectMcpServers(options.mcp(id)).catch(() => undefined);
        // Started (and its MCP servers tried): views showing runtime state reload.
        emit({ kind: 'state', agent: id, data: { state: STATES[a.state()] ?? a.state(), started: true } });
        if (a.state() === 'idle') void a.run().catch(() => undefined);
      },
      // External events: on_external triggers whose filter "source" matches. The route already
      // refused the owner's voices; the agent refuses them again (TRIGGER_SOURCE_FORBIDDEN).
      async trigger(input) {
        let fired: Awaited<ReturnType<Agent['trigger']>>;
        try {
          fired = await a.trigger(input);
        } catch (e) {
          if (e instanceof TrustError && e.code === 'TRIGGER_SOURCE_FORBIDDEN')
            throw controlError('CONTROL_TRIGGER_SOURCE_FORBIDDEN', e.message, e.hint);
          if (e instanceof TrustError && e.code === 'TRIGGER_SOURCE_INVALID')
            throw controlError('CONTROL_TRIGGER_SOURCE_INVALID', e.message, e.hint);
          throw e;
        }
        emit({
          kind: 'state',
          agent: id,
          data: { state: STATES[a.state()] ?? a.state(), trigger: input.source, fired: fired.length },
        });
        return { source: input.source, fired };
      },
    };
    return { adf: a.adf as AdfFile, hooks, close: () => a.close() };
  };
}
