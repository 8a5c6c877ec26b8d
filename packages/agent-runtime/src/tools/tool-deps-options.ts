import { z } from 'zod';
import { fn, withMethods } from '../options/strict-options.js';

/** The strict schema of `createExecutionTools`' dependencies, checked once at the boundary. */
export const builtInToolDepsSchema = z
  .object({
    gate: fn('returns the tool gate, e.g. () => gate'),
    runner: fn('returns the code runner, e.g. () => runner'),
    chat: fn('returns the say/ask hooks, e.g. () => ({ say, ask })'),
    fetch: z
      .object({
        default: withMethods('the default egress client, e.g. egress', 'fetch'),
        allowLocal: withMethods('the allow-local egress client, e.g. localEgress', 'fetch').optional(),
      })
      .strict()
      .optional()
      .describe('egress clients for sys_fetch, e.g. { default: egress }; absent: sys_fetch is not registered'),
    ws: withMethods('egress client for ws_*, e.g. egress; absent: ws_* are not registered', 'webSocket').optional(),
    clock: fn('clock, e.g. () => new Date()').optional(),
    agentId: z.string().min(1).describe('the agent id, e.g. "helper"'),
    msgSend: z
      .object({ name: z.literal('msg_send') })
      .loose()
      .optional()
      .describe('the msg_send tool replacing the stub, e.g. messaging.tool'),
    model: z
      .object({})
      .loose()
      .optional()
      .describe("the agent's model for adf.model_invoke, e.g. { provider }; absent: not registered"),
  })
  .strict()
  .describe('createExecutionTools dependencies, e.g. { gate, runner, chat, agentId }');
