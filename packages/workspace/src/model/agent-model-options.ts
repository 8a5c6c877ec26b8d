import { z } from 'zod';
import { withMethods } from '../control/strict-options.js';
import { envSchema, fn } from '../options.js';

// The strict schema of `createModelAgentOpener`'s options, checked once at its boundary.

const flagsSchema = z
  .object({
    provider: z
      .enum(['scripted', 'openai-compatible', 'anthropic'])
      .optional()
      .describe('the provider kind, e.g. "anthropic"'),
    model: z.string().min(1).optional().describe('the model id, e.g. "claude-sonnet-4-5"'),
    baseUrl: z.string().min(1).optional().describe('the API base URL, e.g. "https://api.anthropic.com"'),
    apiKeyEnv: z.string().min(1).optional().describe('the variable holding the key, e.g. "ANTHROPIC_API_KEY"'),
    allowLocal: z.boolean().optional().describe('let the model client reach loopback and LAN, e.g. true'),
  })
  .strict();

/** The strict schema of `createModelAgentOpener`'s options. */
export const modelAgentOpenerOptionsSchema = z
  .object({
    env: envSchema('where API keys are read, e.g. process.env'),
    flags: flagsSchema.optional().describe('flags for every agent, e.g. { allowLocal: true }'),
    scripted: fn('the provider of scripted agents, e.g. () => createScriptedProvider([])'),
    protectedPorts: fn('ports no model client may reach, e.g. () => [server.port]').optional(),
    egress: fn('the sys_fetch and ws_* clients of each agent, e.g. (id) => ({ fetch, ws })').optional(),
    mcp: fn("how each agent's MCP servers are placed and sandboxed, e.g. (id) => ({ sandbox })").optional(),
    identityKeys: z
      .custom<object>(
        (v) => typeof v === 'object' && v !== null && 'owner' in v && 'runtime' in v && 'sealTo' in v,
        'expected identity keys ({ owner, runtime, sealTo })',
      )
      .optional()
      .describe("the keys agents' identities are sealed to, e.g. loadOrCreateIdentityKeys(file)"),
    mesh: withMethods(
      'the workspace mesh agents message over, e.g. createLocalMesh()',
      'register',
      'lookup',
    ).optional(),
  })
  .strict()
  .describe('createModelAgentOpener options, e.g. { env: process.env, scripted }');
