import { AsyncResource } from 'node:async_hooks';
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
import { createWindowCache } from './loop-history.js';
import { fireDueTimers } from './timer-firing.js';
import type { ConnectMcpOptions, McpPlacement } from '../mcp/mcp-connector.js';
import type { McpServerLiveState } from '../mcp/mcp-live-state.js';
import { createMcpServers, type McpServers } from '../mcp/mcp-servers.js';
import type { McpServiceTuning } from '../mcp/mcp-service.js';
import type { McpResourceLimits } from '../mcp/mcp-session.js';
import type { TimerFiring } from './timer-firing.js';
import type { AgentEvent } from './agent-loop.js';
import { createAgentMessaging, type AgentMessaging } from '../messaging/agent-messaging.js';
import { createConfigMiddleware } from '../messaging/config-middleware.js';
import type { DeliveryFetch } from '../messaging/delivery.js';
import type { LocalMesh } from '../messaging/local-mesh.js';
import { openAgentIdentity, type AgentIdentityState } from '../identity/agent-identity.js';
import type { IdentityKeys } from '../identity/identity-keys.js';
import { createIdentityTools } from '../identity/identity-tools.js';
import { identityStatusTool } from '../identity/identity-status.js';
import { createAttestationTools } from '../identity/attestations.js';
import { createEmitEventTool } from '../tools/emit-event-tool.js';
import {
  createTriggerDispatcher,
  type TriggerDispatcher,
  type TriggerFiring,
  type TriggerWake,
} from '../triggers/trigger-dispatcher.js';
import { triggerEventOf } from '../triggers/trigger-event.js';
import type { TriggerLimits } from '../triggers/trigger-guard.js';
import { chatEvent, llmCallEvent, startupEvent, timerEvent, toolCallEvent } from '../triggers/runtime-events.js';
import { observeGate } from './observed-gate.js';
import { createTimerClock, type TimerScheduler } from './timer-clock.js';
import { reviewKeyOf, signAdfContent, type AdfReviewStore } from '../identity/adf-review.js';
import type { AgentIdentity } from '../identity/did-key.js';

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
  /** Passed to openAdf (default `owned`, or `foreign` when `owner` is given). */
  readonly trust?: OpenAdfOptions['trust'];
  /**
   * The owner and runtime keys agent identities are sealed to (`loadOrCreateIdentityKeys`). Given:
   * the agent's signing key is opened with the runtime key (an owned file without an identity is
   * provisioned first, audited `identity.provision`), and `adf.get_identity` / `adf.set_identity`
   * are registered. Absent: the agent has no identity in this run and those methods are not registered.
   */
  readonly identityKeys?: IdentityKeys;
  /**
   * The workspace's in-process mesh. Given with {@link OpenAgentOptions.identityKeys} and an
   * identity: the agent gets real messaging (its `msg_send` signs and delivers, its ingress is
   * registered under its DID until close), with the config's inbox/outbox middleware running in
   * its code sandbox. Remote addresses go through `egress.fetch.default`.
   */
  readonly mesh?: LocalMesh;
  /**
   * The owner running the agent. Given, the file is foreign unless it carries this owner's valid
   * signature over its current content hash (or its review key is in `reviews`): such a file is
   * refused with `ADF_REVIEW_REQUIRED` before anything can act (no trigger, timer, lambda, model
   * call or MCP server). The owner re-signs the file when the agent closes, so its own changes
   * keep it accepted while an outside change needs a new review.
   */
  readonly owner?: AgentIdentity;
  /** Reviews the owner accepted (see `createAdfReviewStore`); used with `owner` or `trust: 'foreign'`. */
  readonly reviews?: AdfReviewStore;
  /**
   * Wires messaging once the file is open, e.g.
   * `(adf) => createAgentMessaging({ adf, identity, mesh, egress })`; it replaces the wiring from
   * `mesh`. It supplies the real `msg_send`; with neither, `msg_send` fails with NOT_IMPLEMENTED.
   */
  readonly messaging?: (adf: AdfFile) => AgentMessaging;
  /**
   * Schedules the timer clock armed by {@link Agent.start} and the releases of timed triggers (default: Node's timers,
   * unref'd).
   */
  readonly scheduler?: TimerScheduler;
  /** Bounds on trigger firings (depth, rates, queue); defaults in DEFAULT_TRIGGER_LIMITS. */
  readonly triggerLimits?: Partial<TriggerLimits>;
}

/** Wakes queued behind a running activation, at most; more are skipped (logged). */
const MAX_PENDING_WAKES = 10;

/** How {@link Agent.connectMcpServers} places and sandboxes servers. */
export interface AgentMcpOptions {
  /** Creates the OS sandbox of stdio servers; absent: sandboxed stdio servers are refused (`MCP_SANDBOX_MISSING`). */
  readonly createSandbox?: ConnectMcpOptions['createSandbox'];
  /** The `@trust/egress` client `url` servers are reached through; absent: they are refused (`MCP_HTTP_NO_EGRESS`). */
  readonly http?: ConnectMcpOptions['http'];
  /** Who installed each server (default: the agent — the weaker trust). */
  readonly installedBy?: (server: string) => 'owner' | 'agent';
  /** Requested placement per server (default sandbox). */
  readonly runOn?: (server: string) => McpPlacement;
  /** The host gate for agent-installed servers (default false). */
  readonly hostAllowed?: (server: string) => boolean;
  readonly readOnlyRoots?: readonly string[];
  readonly connectTimeoutMs?: number;
  /**
   * Per-server tuning: call deadline (default 60 s), ping deadline, restart backoff, tools/list
   * caps, memory/process/open-file limits, line limit (default 8 MiB). Undefined: the defaults.
   */
  readonly tuning?: (
    server: string,
  ) => (McpServiceTuning & { readonly resources?: McpResourceLimits; readonly maxLineBytes?: number }) | undefined;
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
  /** The agent's DID when its identity is open in this run (see {@link OpenAgentOptions.identityKeys}). */
  readonly did: string | undefined;
  /**
   * What opening the identity found: `loaded`, `provisioned`, `missing`, `sealed` (another
   * runtime's), or `none` (no keys given).
   */
  readonly identity: AgentIdentityState | { readonly kind: 'none' };
  /** The agent's messaging (its ingress, for registering with a mesh), when wired. */
  readonly messaging: AgentMessaging | undefined;
  readonly gate: ToolGate;
  readonly provider: ModelProvider;
  readonly runner: CodeRunner;
  state(): AgentState;
  /** Human input: appends a user message and runs the loop until the model ends its turn. */
  send(text: string): Promise<TurnOutcome>;
  /**
   * Continues pending work (an unanswered user message, or calls interrupted by a restart). Does nothing when idle and
   * not autonomous.
   */
  run(): Promise<TurnOutcome>;
  /** Answers the pending `ask`. */
  answer(text: string): void;
  /**
   * Fires the timers due now (the host calls this on its own schedule): system timers run their
   * lambda with the file's authorization; agent timers wake the loop only in autonomous mode.
   */
  fireDueTimers(): Promise<TimerFiring[]>;
  /**
   * Starts the agent: arms its timer clock (timers then fire by themselves at their `nextWakeAt`)
   * and fires `on_startup` triggers. A second start while started does nothing.
   */
  start(): Promise<TriggerFiring[]>;
  /** Stops the agent: disarms the timer clock and aborts the running activation. */
  stop(): void;
  /** Whether {@link Agent.start} armed the timer clock. */
  started(): boolean;
  /** The time the timer clock will next wake, or null (not started, or no pending timer). */
  nextTimerWake(): string | null;
  /**
   * Dispatches an external event (`on_external` triggers whose filter `source` matches) and
   * returns what fired. Sources `user`, `owner` and `system` are refused (`TRIGGER_SOURCE_FORBIDDEN`).
   */
  trigger(input: { source: string; payload?: unknown }): Promise<TriggerFiring[]>;
  /** The agent's trigger dispatcher (events raised by the runtime are dispatched here). */
  readonly triggers: TriggerDispatcher;
  /** Resolves when queued trigger events and the activations they started have finished (for hosts and tests). */
  idle(): Promise<void>;
  /**
   * Starts every MCP server in the config as a long-lived service, each independently (one that
   * hangs never delays the others' tools), and registers each one's tools (named by `mcpToolName`;
   * they still need declarations to run) as soon as it is ready. Servers are restarted with
   * backoff when they end, refresh their tools on `list_changed`, and are closed with the agent.
   * Resolves when each server had its first start; rejects with the first failure (the others stay up).
   */
  connectMcpServers(
    options: AgentMcpOptions,
  ): Promise<Array<{ server: string; placement: McpPlacement; tools: string[]; refusedEnv: readonly string[] }>>;
  /**
   * The live state of each MCP server {@link Agent.connectMcpServers} started, in config order:
   * `connected` (ready), `failed` (degraded until its restart, or given up; with the code and message) or
   * `disconnected` (starting), each with its `health`: state, reason, stderr
   * tail, restarts, and its tools with their risk. A server not listed was never started.
   */
  mcpStatus(): readonly McpServerLiveState[];
  /** The agent's MCP servers (health, per-call deadlines), once {@link Agent.connectMcpServers} ran. */
  mcpServers(): McpServers | undefined;
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
 * const agent = openAgent('helper.adf', { provider: createScriptedProvider([{ content: [{ type: 'text', text: 'hi' }]
 * }]) });
 * const out = await agent.send('hello');
 * agent.close();
 * ```
 */
export function openAgent(path: string, options: OpenAgentOptions): Agent {
  // The window's rows as last read, so that each turn reads only what was appended since.
  const window = createWindowCache();
  const clock = options.clock ?? (() => new Date());
  const gated = options.owner !== undefined || options.reviews !== undefined;
  const trust = options.trust ?? (gated ? 'foreign' : 'owned');
  const adf = openAdf(path, {
    trust,
    clock,
    ...(gated ? { reviewKeyOf } : {}),
    ...(options.owner ? { ownerDid: options.owner.did } : {}),
    ...(options.reviews ? { reviews: options.reviews } : {}),
  });
  let identityState: Agent['identity'] = { kind: 'none' };
  try {
    // A gated file that opened is one its owner accepted: it may get its identity like an owned one.
    if (options.identityKeys)
      identityState = openAgentIdentity(adf, options.identityKeys, { provision: trust === 'owned' || gated });
  } catch (e) {
    adf.close();
    throw e;
  }
  const identity =
    identityState.kind === 'loaded' || identityState.kind === 'provisioned' ? identityState.identity : undefined;
  if (identityState.kind === 'sealed')
    adf.logs.add({ level: 'warn', origin: 'identity', event: 'identity.sealed', message: identityState.reason });
  const agentId = adf.meta.get('adf_did') ?? adf.config().id ?? path;
  let state: AgentState = 'idle';
  let controller: AbortController | undefined;
  let pendingAsk: { resolve: (a: string) => void; reject: (e: unknown) => void } | undefined;
  const emit = (e: AgentEvent) => {
    try {
      options.onEvent?.(e);
    } catch {
      /* observers never break the loop */
    }
  };

  const chat: ChatHooks = {
    say(text) {
      adf.logs.add({ level: 'info', origin: 'say', message: text.slice(0, 10_000) });
      emit({ kind: 'say', text });
    },
    ask(question, signal) {
      emit({ kind: 'ask', question });
      if (options.asker) return options.asker(question, signal);
      state = 'awaiting_answer';
      return new Promise<string>((resolve, reject) => {
        pendingAsk = {
          resolve: (a) => {
            pendingAsk = undefined;
            state = 'running_tool';
            resolve(a);
          },
          reject,
        };
        signal.addEventListener(
          'abort',
          () => {
            pendingAsk = undefined;
            reject(new TrustError('TOOL_CALL_ABORTED', 'ask was aborted'));
          },
          { once: true },
        );
      });
    },
  };

  const sandbox = options.codeSandbox ?? createCodeSandbox();
  let gateRef: ToolGate | undefined;
  const gateOf = () => {
    if (!gateRef) throw new TrustError('AGENT_NOT_READY', 'the gate is not ready');
    return gateRef;
  };
  const runner = createCodeRunner({ adf, sandbox, gate: gateOf });
  const sql = createSqlGuard(adf);
  const ownMessaging = options.messaging === undefined && identity !== undefined && options.mesh !== undefined;
  const messaging =
    options.messaging?.(adf) ??
    (ownMessaging
      ? (() => {
          const mw = createConfigMiddleware({ adf, runner });
          const delivery = options.egress?.fetch?.default as unknown as DeliveryFetch | undefined;
          return createAgentMessaging({
            adf,
            identity: identity!,
            mesh: options.mesh!,
            middleware: [mw.inbox],
            outboxMiddleware: [mw.outbox],
            ...(delivery ? { egress: delivery } : {}),
          });
        })()
      : undefined);
  let triggersRef: TriggerDispatcher | undefined;
  const exec = createExecutionTools({
    gate: gateOf,
    runner: () => runner,
    chat: () => chat,
    clock,
    agentId,
    ...(options.egress?.fetch ? { fetch: options.egress.fetch } : {}),
    ...(options.egress?.ws ? { ws: options.egress.ws } : {}),
    ...(messaging ? { msgSend: messaging.msgSendTool as ToolDefinition<never> } : {}),
    model: { provider: () => options.provider, onModelCall: (c) => triggersRef?.emit(llmCallEvent(c)) },
  });
  const registry = createToolRegistry([
    ...exec.tools,
    createDbQueryTool(sql) as unknown as ToolDefinition<never>,
    createDbExecuteTool(sql) as unknown as ToolDefinition<never>,
    sysGetConfigTool as unknown as ToolDefinition<never>,
    sysUpdateConfigTool as unknown as ToolDefinition<never>,
    identityStatusTool as unknown as ToolDefinition<never>,
    ...createAttestationTools({ identity: () => identity, now: () => clock().getTime() }),
    createEmitEventTool((e) => emit({ kind: 'custom', ...e })) as unknown as ToolDefinition<never>,
    ...(options.identityKeys
      ? (createIdentityTools({
          privateKey: options.identityKeys.runtime.privateKey,
          sealTo: options.identityKeys.sealTo,
        }) as unknown as ToolDefinition<never>[])
      : []),
    ...(options.tools ?? []),
  ]);
  const approver: Approver | undefined = options.approver
    ? {
        request: async (req) => {
          state = 'awaiting_approval';
          emit({ kind: 'approval', taskId: req.task.id, tool: req.task.tool });
          try {
            return await options.approver!.request(req);
          } finally {
            state = 'running_tool';
          }
        },
      }
    : undefined;
  let mcpServers: McpServers | undefined;
  // The gate reports every finished call as an `on_tool_call` event (observational).
  const gate = observeGate(createToolGate({ adf, registry, clock, agentId, ...(approver ? { approver } : {}) }), (c) =>
    triggersRef?.emit(toolCallEvent(c)),
  );
  gateRef = gate;

  // Wakes from triggers and timers: start the loop without awaiting it, or queue behind the
  // running activation (each queued wake keeps the async context, so the trigger cause, of its origin).
  const pendingWakes: Array<() => void> = [];
  const activations = new Set<Promise<unknown>>();
  const startActivation = (text: string) => {
    const p = activate(text).catch((e: unknown) => {
      try {
        adf.logs.add({
          level: 'warn',
          origin: 'loop',
          event: 'wake_failed',
          message: e instanceof Error ? e.message : String(e),
        });
      } catch {
        /* closed */
      }
    });
    activations.add(p);
    void p.finally(() => activations.delete(p));
  };
  const wake = (text: string): TriggerWake => {
    if (state === 'closed') return { outcome: 'busy', detail: 'the agent is closed' };
    if (controller === undefined) {
      startActivation(text);
      return { outcome: 'woke' };
    }
    if (pendingWakes.length >= MAX_PENDING_WAKES)
      return { outcome: 'busy', detail: `the loop is busy and ${MAX_PENDING_WAKES} wakes are already queued` };
    pendingWakes.push(AsyncResource.bind(() => startActivation(text)));
    return { outcome: 'queued' };
  };
  const triggers = createTriggerDispatcher({
    adf,
    runner,
    wake,
    clock,
    agentId,
    ...(options.triggerLimits ? { limits: options.triggerLimits } : {}),
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
  });
  triggersRef = triggers;

  const activate = async (input: string | undefined): Promise<TurnOutcome> => {
    if (state === 'closed') throw new TrustError('AGENT_CLOSED', 'the agent is closed');
    if (controller) throw new TrustError('AGENT_BUSY', 'the agent is already running; wait for it or abort it');
    controller = new AbortController();
    try {
      return await runAgentLoop({
        adf,
        gate,
        provider: options.provider,
        input,
        signal: controller.signal,
        maxTurns: options.maxTurns ?? 50,
        emit,
        setState: (s) => {
          state = s;
        },
        onModelCall: (c) => triggers.emit(llmCallEvent(c)),
        window,
      });
    } finally {
      controller = undefined;
      if ((state as AgentState) !== 'closed') state = 'idle';
      const next = (state as AgentState) === 'closed' ? undefined : pendingWakes.shift();
      if (next) queueMicrotask(next);
    }
  };

  const fireTimers = async (): Promise<TimerFiring[]> => {
    const fired = await fireDueTimers({ adf, runner, now: clock(), wake });
    for (const f of fired) triggers.emit(timerEvent(f));
    timerClock.rearm();
    return fired;
  };
  const timerClock = createTimerClock({
    timers: adf.timers,
    clock,
    fire: fireTimers,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    onError: (e) => {
      try {
        adf.logs.add({
          level: 'warn',
          origin: 'timer',
          event: 'timer.clock_error',
          message: e instanceof Error ? e.message : String(e),
        });
      } catch {
        /* closed */
      }
    },
  });
  const unsubscribe = adf.events.subscribe((e) => {
    if (e.kind === 'timers') timerClock.rearm();
    const ev = triggerEventOf(e);
    if (ev) triggers.emit(ev);
  });

  if (ownMessaging && messaging) options.mesh!.register(messaging.did, messaging.ingest, { audit: adf.audit });

  return {
    adf,
    did: identity?.did,
    identity: identityState,
    gate,
    provider: options.provider,
    runner,
    messaging,
    state: () => state,
    triggers,
    send(text) {
      const out = activate(text);
      triggers.emit(chatEvent(text.length));
      return out;
    },
    run: () => activate(undefined),
    answer(text) {
      if (!pendingAsk) throw new TrustError('AGENT_NO_QUESTION', 'there is no pending question to answer');
      pendingAsk.resolve(text);
    },
    connectMcpServers(o) {
      mcpServers ??= createMcpServers({ registry, config: () => adf.config(), log: (row) => adf.logs.add(row) });
      return mcpServers.start(adf.config().mcp.servers, (server) => ({
        installedBy: o.installedBy?.(server.name) ?? 'agent',
        ...(o.createSandbox ? { createSandbox: o.createSandbox } : {}),
        ...(o.http ? { http: o.http } : {}),
        ...(o.runOn ? { runOn: o.runOn(server.name) } : {}),
        ...(o.hostAllowed ? { hostAllowed: o.hostAllowed(server.name) } : {}),
        ...(o.readOnlyRoots ? { readOnlyRoots: o.readOnlyRoots } : {}),
        ...(o.connectTimeoutMs ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
        ...(o.tuning?.(server.name) ?? {}),
      }));
    },
    mcpStatus: () => mcpServers?.liveStates() ?? [],
    mcpServers: () => mcpServers,
    fireDueTimers: fireTimers,
    async start() {
      if (state === 'closed') throw new TrustError('AGENT_CLOSED', 'the agent is closed');
      if (timerClock.armed()) return [];
      timerClock.arm();
      return triggers.dispatch(startupEvent());
    },
    stop() {
      timerClock.disarm();
      pendingWakes.length = 0;
      controller?.abort();
    },
    started: () => timerClock.armed(),
    nextTimerWake: () => timerClock.scheduledFor(),
    trigger: async (input) => triggers.dispatchExternal(input),
    async idle() {
      for (;;) {
        await triggers.idle();
        if (activations.size === 0) return;
        await Promise.allSettled([...activations]);
      }
    },
    abort() {
      controller?.abort();
    },
    close() {
      timerClock.disarm();
      triggers.close();
      unsubscribe();
      pendingWakes.length = 0;
      controller?.abort();
      state = 'closed';
      if (ownMessaging && messaging && options.mesh!.lookup(messaging.did) === messaging.ingest)
        options.mesh!.unregister(messaging.did);
      void mcpServers?.close();
      sql.close();
      if (options.owner) {
        try {
          signAdfContent(adf, options.owner);
        } catch {
          /* unsigned: the next open asks for a review (fails closed) */
        }
      }
      adf.close();
      if (!options.codeSandbox) void sandbox.close();
    },
  };
}
