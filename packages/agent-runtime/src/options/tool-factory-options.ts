import { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { fn, withMethods } from './strict-options.js';

// The strict schemas of the tool factories that take a dependency object (createSysFetchTool,
// createModelInvokeTool, createIdentityTools), each checked once when the tool is made.

/** The strict schema of `createSysFetchTool`'s dependencies. */
export const sysFetchToolDepsSchema = z
  .object({
    clients: z
      .object({
        default: withMethods('the default egress client, e.g. egress', 'fetch'),
        allowLocal: withMethods('the allow-local egress client, e.g. localEgress', 'fetch').optional(),
      })
      .strict()
      .describe('egress clients, e.g. { default: egress }'),
    runner: fn('returns the code runner (fetch middleware), e.g. () => runner'),
    agentId: z.string().min(1).describe('the agent id, e.g. "helper"'),
  })
  .strict()
  .describe('createSysFetchTool dependencies, e.g. { clients: { default: egress }, runner, agentId }');

/** The strict schema of `createModelInvokeTool`'s dependencies. */
export const modelInvokeToolDepsSchema = z
  .object({
    provider: fn("returns the agent's model provider, e.g. () => provider"),
    onModelCall: fn('told after every invocation, e.g. (call) => log(call)').optional(),
  })
  .strict()
  .describe('createModelInvokeTool dependencies, e.g. { provider: () => provider }');

const publicKey = (what: string) =>
  z.custom<Uint8Array>((v) => v instanceof Uint8Array && v.length === 32, 'expected 32 key bytes').describe(what);

/** The strict schema of `createIdentityTools`' runtime. */
export const identityToolsDepsSchema = z
  .object({
    privateKey: z
      .custom<KeyObject>((v) => v instanceof KeyObject && v.type === 'private', 'expected a private KeyObject')
      .describe("the runtime's private key, e.g. runtime.privateKey"),
    sealTo: z
      .object({
        owner: publicKey("the owner's X25519 public key, e.g. ownerKey.publicKey"),
        runtime: publicKey("the runtime's X25519 public key, e.g. runtimeKey.publicKey"),
      })
      .strict()
      .describe('the keys a stored secret is sealed to, e.g. { owner, runtime }'),
  })
  .strict()
  .describe('createIdentityTools runtime, e.g. { privateKey, sealTo }');
