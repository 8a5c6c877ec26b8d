import type { ToolDefinition } from '../gate/tool-definition.js';
import { checkOptions } from '../options/strict-options.js';
import { builtInToolDepsSchema } from './tool-deps-options.js';
import type { ToolGate } from '../gate/tool-gate.js';
import type { CodeRunner } from '../code/code-runner.js';
import { fsDeleteTool, fsListTool, fsReadTool, fsWriteTool } from './fs-tools.js';
import { sysDeleteMetaTool, sysGetMetaTool, sysSetMetaTool } from './meta-tools.js';
import { createSetTimerTool, sysDeleteTimerTool, sysListTimersTool } from './timer-tools.js';
import { createSysCodeTool, createSysLambdaTool } from './code-tools.js';
import { createSysFetchTool } from './fetch-tool.js';
import type { FetchClients } from './fetch-tool.js';
import { createWsTools } from './ws-tools.js';
import type { WsClient, WsRegistry } from './ws-tools.js';
import { msgListTool, msgReadTool } from './msg-inbox-tools.js';
import { createAskTool, createSayTool, msgSendStubTool } from './chat-tools.js';
import type { ChatHooks } from './chat-tools.js';
import { createShellTool } from './shell-tool.js';
import { createModelInvokeTool, createTaskResolveTool, loopInjectTool } from './code-methods.js';
import type { ModelInvokeDeps } from './code-methods.js';

/** What the execution tools need from the agent that registers them. Late-bound pieces are functions. */
export interface BuiltInToolDeps {
  readonly gate: () => ToolGate;
  readonly runner: () => CodeRunner;
  readonly chat: () => ChatHooks;
  /** Egress clients for sys_fetch; absent: sys_fetch is not registered (calls fail TOOL_NOT_IMPLEMENTED). */
  readonly fetch?: FetchClients;
  /** Egress client for ws_*; absent: ws_* are not registered. */
  readonly ws?: WsClient;
  readonly clock?: () => Date;
  readonly agentId: string;
  /** Replaces the msg_send stub once messaging is wired. */
  readonly msgSend?: ToolDefinition<never>;
  /** The agent's model for the code-only `adf.model_invoke`; absent: it is not registered (TOOL_NOT_IMPLEMENTED). */
  readonly model?: ModelInvokeDeps;
}

/**
 * The execution part's built-in tools as gate-ready definitions (fs_*, sys_*meta, timers,
 * sys_code, sys_lambda, sys_fetch, ws_*, say, ask, adf_shell, msg_send, msg_list, msg_read) and the code-only methods
 * (task_resolve, loop_inject, model_invoke: the gate refuses them to the model). Database and
 * config tools come from the SQL guard and config modules.
 */
export function createExecutionTools(input: BuiltInToolDeps): { tools: ToolDefinition<never>[]; ws?: WsRegistry } {
  const deps = checkOptions('createExecutionTools', builtInToolDepsSchema, input);
  let n = 0;
  const tools: ToolDefinition<never>[] = [
    fsReadTool,
    fsWriteTool,
    fsListTool,
    fsDeleteTool,
    sysGetMetaTool,
    sysSetMetaTool,
    sysDeleteMetaTool,
    createSetTimerTool(deps.clock ?? (() => new Date())),
    sysListTimersTool,
    sysDeleteTimerTool,
    createSysCodeTool(deps.runner),
    createSysLambdaTool(deps.runner),
    createSayTool(deps.chat),
    createAskTool(deps.chat),
    createShellTool(deps.gate),
    deps.msgSend ?? msgSendStubTool,
    msgListTool,
    msgReadTool,
    createTaskResolveTool(deps.gate),
    loopInjectTool,
  ] as unknown as ToolDefinition<never>[];
  if (deps.model) tools.push(createModelInvokeTool(deps.model) as unknown as ToolDefinition<never>);
  if (deps.fetch)
    tools.push(
      createSysFetchTool({
        clients: deps.fetch,
        runner: deps.runner,
        agentId: deps.agentId,
      }) as unknown as ToolDefinition<never>,
    );
  let ws: WsRegistry | undefined;
  if (deps.ws) {
    const made = createWsTools(deps.ws, () => `ws${++n}`);
    tools.push(...made.tools);
    ws = made.registry;
  }
  return { tools, ...(ws ? { ws } : {}) };
}
