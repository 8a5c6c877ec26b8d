// `@trust/agent-runtime/tools`: the built-in tools, each a ToolDefinition for the gate's registry.
export { createExecutionTools } from './built-in-tools.js';
export type { BuiltInToolDeps } from './built-in-tools.js';
export { fsDeleteTool, fsListTool, fsReadTool, fsWriteTool } from './fs-tools.js';
export { msgListTool, msgReadTool } from './msg-inbox-tools.js';
export { sysDeleteMetaTool, sysGetMetaTool, sysSetMetaTool } from './meta-tools.js';
export { createSetTimerTool, sysDeleteTimerTool, sysListTimersTool, MIN_TIMER_INTERVAL_MS } from './timer-tools.js';
export { createSysCodeTool, createSysLambdaTool } from './code-tools.js';
export { createSysFetchTool, FETCH_BODY_CAP_BYTES } from './fetch-tool.js';
export type { FetchClient, FetchClients } from './fetch-tool.js';
export { createWsTools } from './ws-tools.js';
export type { WsClient, WsRegistry } from './ws-tools.js';
export { createAskTool, createSayTool, msgSendStubTool } from './chat-tools.js';
export type { ChatHooks } from './chat-tools.js';
export { createShellGate, createShellTool, GATE_REJECTION_CODES } from './shell-tool.js';
export {
  LOOP_NOTE_ROLE,
  MAX_LOOP_NOTE_CHARS,
  MAX_MODEL_INVOKE_TOKENS,
  createModelInvokeTool,
  createTaskResolveTool,
  loopInjectTool,
} from './code-methods.js';
export type { ModelInvokeDeps } from './code-methods.js';
export { CUSTOM_EVENT_TYPE, MAX_CUSTOM_EVENT_BYTES, createEmitEventTool } from './emit-event-tool.js';
export type { CustomEvent } from './emit-event-tool.js';
export { nextCronWake, parseCronSchedule } from './cron-schedule.js';
export type { CronSchedule } from './cron-schedule.js';
export { sysGetConfigTool, sysUpdateConfigTool } from '../config/config-tools.js';
