// `@trust/agent-runtime/shell`: the virtual shell (parse, preflight through a gate, run) and its commands.
export { createShell, DEFAULT_REJECTION_CODES } from './shell-interpreter.js';
export type { Shell, ShellOptions } from './shell-interpreter.js';
export { createDefaultCommands } from './commands/index.js';
export { EXIT_DENIED, EXIT_NOT_FOUND, EXIT_REJECTED } from './shell-types.js';
export type {
  CommandContext,
  ShellCommand,
  ShellGate,
  ShellResult,
  ShellSink,
  ShellTraceEntry,
} from './shell-types.js';
