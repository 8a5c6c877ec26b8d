export { openAgent } from './agent.js';
export type { Agent, AgentEgress, AgentMcpOptions, AgentState, OpenAgentOptions, TurnOutcome } from './agent.js';
export type { AgentEvent } from './agent-loop.js';
export type { TimerFiring } from './timer-firing.js';
