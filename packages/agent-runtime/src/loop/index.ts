export { openAgent } from './agent.js';
export type { Agent, AgentEgress, AgentMcpOptions, AgentState, OpenAgentOptions, TurnOutcome } from './agent.js';
export type { AgentEvent } from './agent-loop.js';
export type { TimerFiring } from './timer-firing.js';
export { createTimerClock, nodeTimerScheduler } from './timer-clock.js';
export type { TimerClock, TimerClockOptions, TimerScheduler } from './timer-clock.js';
export { observeGate } from './observed-gate.js';
export type { ObservedToolCall } from './observed-gate.js';
