import { TrustError } from '@trust/core';
import { openAdf } from '../adf/adf-file.js';
import type { AdfFile, OpenAdfOptions } from '../adf/adf-file.js';
import type { Approver } from '../gate/approvals.js';
import { createToolRegistry } from '../gate/tool-definition.js';
import type { ToolDefinition } from '../gate/tool-definition.js';
import { createToolGate } from '../gate/tool-gate.js';
import type { ToolGate } from '../gate/tool-gate.js';
import { createSqlGuard } from '../sql/sql-guard.js';
import { createDbExecuteTool, createDbQueryTool } from '../sql/db-tools.js';
import { sysGetConfigTool, sysUpdateConfigTool } from '../config/index.js';
import { createCodeSandbox } from '../code/code-sandbox.js';
import type { CodeSandbox } from '../code/code-sandbox.js';
import { createCodeRunner } from '../code/code-runner.js';
import type { CodeRunner } from '../code/code-runner.js';
import { createExecutionTools } from '../tools/built-in-tools.js';
import type { FetchClients } from '../tools/fetch-tool.js';
import type { WsClient } from '../tools/ws-tools.js';
import type { ChatHooks } from '../tools/chat-tools.js';
import type { ModelProvider, StopReason } from '../providers/model-provider.js';
import { runAgentLoop } from './agent-loop.js';
import { fireDueTimers } from './timer-firing.js';
import { connectMcpServer } from '../mcp/mcp-connector.js';
import type { ConnectMcpOptions, McpConnection, McpPlacement } from '../mcp/mcp-connector.js';
import type { TimerFiring } from './timer-firing.js';
import type { AgentEvent } from './agent-loop.js';
import type { AgentMessaging } from '../messaging/agent-messaging.js';

/** Egress for the agent's tools: the `@trust/egress` client(s) built by the host. */
export interface AgentEgress {
  /** sys_fetch clients (guard mode `default` with the control port protected; optional `allowLocal`). */
  readonly fetch?: FetchClients;
  /** ws_* client. */
  readonly ws?: WsClient;
}

/** Options of {@link openAgent}. */
export interface OpenAgentOptions {
  readonly provider: ModelProvider;
  /** Absent: sys_fetch and ws_* are not registered, so calls to them fail closed. */
  readonly egress?: AgentEgress;
  /** `@trust/os-sandbox` instance for processes the agent starts (MCP stdio servers). */
  readonly sandbox?: unknown;
  readonly approver?: Approver;
  /** Answers `ask`; absent: the question waits for {@link Agent.answer}. */
  readonly asker?: (question: string, signal: AbortSignal) => Promise<string>;
  readonly clock?: () => Date;
  readonly codeSandbox?: CodeSandbox;
  /** Extra tools (e.g. MCP tools) registered next to the built-ins. */
  readonly tools?: ReadonlyArray<ToolDefinition<never>>;
  /** Hard cap of model turns per activation, whatever the config says (default 50). */
  readonly maxTurns?: number;
  readonly onEvent?: (event: AgentEvent) => void;
  /** Passed to openAdf (default `owned`). */
  readonly trust?: OpenAdfOptions['trust'];
  /**
   * Wires messaging once the file is open, e.g.
   * `(adf) => createAgentMessaging({ adf, identity, mesh, egress })`. It supplies the real
   * `msg_send`; absent, `msg_send` fails with NOT_IMPLEMENTED.
   */
  readonly messaging?: (adf: AdfFile) => AgentMessaging;
}

/** How {@link Agent.connectMcpServers} places and sandboxes servers. */
export interface AgentMcpOptions {
  readonly createSandbox: ConnectMcpOptions['createSandbox'];
  /** Who installed each server (default: the agent — the weaker trust). */
  readonly installedBy?: (server: string) => 'owner' | 'agent';
  /** Requested placement per server (default sandbox). */
  readonly runOn?: (server: string) => McpPlacement;
  /** The host gate for agent-installed servers (default false). */
  readonly hostAllowed?: (server: string) => boolean;
  readonly readOnlyRoots?: readonly string[];
  readonly connectTimeoutMs?: number;
}

/** How an activation ended. */
export interface TurnOutcome {
  readonly stopReason: StopReason | 'aborted' | 'turn_limit' | 'idle';
  /** The text of the last assistant message. */
  readonly text: string;
  /** Model turns taken in this activation. */
  readonly turns: number;
}

/** What the agent is doing right now. */
export type AgentState = 'idle' | 'thinking' | 'running_tool' | 'awaiting_approval' | 'awaiting_answer' | 'closed';

/** An open agent: its file, gate and loop. */
export interface Agent {
  readonly adf: AdfFile;
  /** The agent's messaging (its ingress, for registering with a mesh), when wired. */
  readonly messaging: AgentMessaging | undefined;
  readonly gate: ToolGate;
  readonly provider: ModelProvider;
  readonly runner: CodeRunner;
  state(): AgentState;
  /** Human input: appends a user message and runs the loop until the model ends its turn. */
  send(text: string): Promise<TurnOutcome>;
  /** Continues pending work (an unanswered user message, or calls interrupted by a restart). Does nothing when idle and not autonomous. */
  run(): Promise<TurnOutcome>;
  /** Answers the pending `ask`. */
  answer(text: string): void;
  /**
   * Fires the timers due now (the host calls this on its own schedule): system timers run their
   * lambda with the file's authorization; agent timers wake the loop only in autonomous mode.
   */
  fireDueTimers(): Promise<TimerFiring[]>;
  /**
   * Connects every MCP server in the config and registers its `mcp_<server>_<tool>` tools (they
   * still need declarations to run). Servers are closed with the agent.
   */
  connectMcpServers(options: AgentMcpOptions): Promise<Array<{ server: string; placement: McpPlacement; tools: string[]; refusedEnv: readonly string[] }>>;
  /** Stops the current activation cleanly. */
  abort(): void;
  close(): void;
}

/**
 * Opens an agent file and wires its loop: provider, gate, built-in tools, code sandbox and
 * egress. Autonomous mode is off by default: the agent acts only on {@link Agent.send}.
 *
 * @example
 * ```ts
 * const agent = openAgent('helper.adf', { provider: createScriptedProvider([{ content: [{ type: 'text', text: 'hi' }] }]) });
 * const out = await agent.send('hello');
 * agent.close();
 * ```
 */
export function openAgent(path: string, options: OpenAgentOptions): Agent {
  const clock = options.clock ?? (() => new Date());
  const adf = openAdf(path, { trust: options.trust ?? 'owned', clock });
  const agentId = adf.meta.get('adf_did') ?? adf.config().id ?? path;
  let state: AgentState = 'idle';
  let controller: AbortController | undefined;
  let pendingAsk: { resolve: (a: string) => void; reject: (e: unknown) => void } | undefined;
  const emit = (e: AgentEvent) => { try { options.onEvent?.(e); } catch { /* observers never break the loop */ } };

  const chat: ChatHooks = {
    say(text) { adf.logs.add({ level: 'info', origin: 'say', message: text.slice(0, 10_000) }); emit({ kind: 'say', text }); },
    ask(question, signal) {
      emit({ kind: 'ask', question });
      if (options.asker) return options.asker(question, signal);
      state = 'awaiting_answer';
      return new Promise<string>((resolve, reject) => {
        pendingAsk = { resolve: (a) => { pendingAsk = undefined; state = 'running_tool'; resolve(a); }, reject };
        signal.addEventListener('abort', () => { pendingAsk = undefined; reject(new TrustError('TOOL_CALL_ABORTED', 'ask was aborted')); }, { once: true });
      });
    },
  };

  const sandbox = options.codeSandbox ?? createCodeSandbox();
  let gateRef: ToolGate | undefined;
  const gateOf = () => { if (!gateRef) throw new TrustError('AGENT_NOT_READY', 'the gate is not ready'); return gateRef; };
  const runner = createCodeRunner({ adf, sandbox, gate: gateOf });
  const sql = createSqlGuard(adf);
  const messaging = options.messaging?.(adf);
  const exec = createExecutionTools({
    gate: gateOf, runner: () => runner, chat: () => chat, clock, agentId,
    ...(options.egress?.fetch ? { fetch: options.egress.fetch } : {}),
    ...(options.egress?.ws ? { ws: options.egress.ws } : {}),
    ...(messaging ? { msgSend: messaging.msgSendTool as ToolDefinition<never> } : {}),
  });
  const registry = createToolRegistry([...exec.tools, createDbQueryTool(sql) as unknown as ToolDefinition<never>, createDbExecuteTool(sql) as unknown as ToolDefinition<never>, sysGetConfigTool as unknown as ToolDefinition<never>, sysUpdateConfigTool as unknown as ToolDefinition<never>, ...(options.tools ?? [])]);
  const approver: Approver | undefined = options.approver
    ? { request: async (req) => { state = 'awaiting_approval'; emit({ kind: 'approval', taskId: req.task.id, tool: req.task.tool }); try { return await options.approver!.request(req); } finally { state = 'running_tool'; } } }
    : undefined;
  const mcp: McpConnection[] = [];
  const gate = createToolGate({ adf, registry, clock, agentId, ...(approver ? { approver } : {}) });
  gateRef = gate;

  const activate = async (input: string | undefined): Promise<TurnOutcome> => {
    if (state === 'closed') throw new TrustError('AGENT_CLOSED', 'the agent is closed');
    if (controller) throw new TrustError('AGENT_BUSY', 'the agent is already running; wait for it or abort it');
    controller = new AbortController();
    try {
      return await runAgentLoop({
        adf, gate, provider: options.provider, input, signal: controller.signal, maxTurns: options.maxTurns ?? 50, emit,
        setState: (s) => { state = s; },
      });
    } finally {
      controller = undefined;
      if ((state as AgentState) !== 'closed') state = 'idle';
    }
  };

  return {
    adf, gate, provider: options.provider, runner, messaging,
    state: () => state,
    send: (text) => activate(text),
    run: () => activate(undefined),
    answer(text) {
      if (!pendingAsk) throw new TrustError('AGENT_NO_QUESTION', 'there is no pending question to answer');
      pendingAsk.resolve(text);
    },
    async connectMcpServers(o) {
      const out = [];
      for (const server of adf.config().mcp.servers) {
        const conn = await connectMcpServer({
          server, createSandbox: o.createSandbox, installedBy: o.installedBy?.(server.name) ?? 'agent',
          ...(o.runOn ? { runOn: o.runOn(server.name) } : {}), ...(o.hostAllowed ? { hostAllowed: o.hostAllowed(server.name) } : {}),
          ...(o.readOnlyRoots ? { readOnlyRoots: o.readOnlyRoots } : {}), ...(o.connectTimeoutMs ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
        });
        mcp.push(conn);
        for (const t of conn.tools) if (!registry.has(t.name)) registry.register(t);
        adf.logs.add({ level: 'info', origin: 'mcp', event: 'mcp.connected', target: server.name, message: `${server.name} connected (${conn.placement}); ${conn.tools.length} tools${conn.refusedEnv.length ? `; refused env ${conn.refusedEnv.join(', ')}` : ''}` });
        out.push({ server: conn.server, placement: conn.placement, tools: conn.tools.map((t) => t.name), refusedEnv: conn.refusedEnv });
      }
      return out;
    },
    fireDueTimers: () => fireDueTimers({ adf, runner, now: clock(), wake: (text) => activate(text) }),
    abort() { controller?.abort(); },
    close() { controller?.abort(); state = 'closed'; for (const c of mcp.splice(0)) void c.close(); sql.close(); adf.close(); },
  };
}

