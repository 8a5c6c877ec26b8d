import { z } from 'zod';
import { envSchema, fn } from './options.js';

/** The strict schema of `openWorkspace`'s options, checked once at its boundary. */
export const openWorkspaceOptionsSchema = z
  .object({
    env: envSchema('where API keys, granted variables and policy header values are read, e.g. process.env'),
    home: z.string().min(1).describe('the trust home: run log and caches, e.g. "~/.trust"'),
    demo: z.boolean().optional().describe('every agent answers with the scripted provider, e.g. true'),
    scripted: fn('the provider of scripted agents, e.g. () => createScriptedProvider(steps)').optional(),
    port: z.number().int().min(0).max(65_535).optional().describe('the control port, 0 for any free one, e.g. 7385'),
    studioDir: z.string().min(1).optional().describe('the built studio to serve, e.g. "dist/studio"'),
    allowLocalModel: z.boolean().optional().describe('let model clients reach this machine or the LAN, e.g. true'),
    resolve: fn('the egress name resolver (tests: a stub), e.g. async (host) => ["127.0.0.1"]').optional(),
    mcpConnectTimeoutMs: z
      .number()
      .int()
      .positive()
      .max(2_147_483_647)
      .optional()
      .describe('deadline of one MCP server connection in ms, e.g. 120000'),
    onWarning: fn(
      'receives warnings (a refused policy file, an unrecorded run), e.g. (m) => console.warn(m)',
    ).optional(),
  })
  .strict()
  .describe('openWorkspace options, e.g. { env: process.env, home: "~/.trust" }');
