import { z } from 'zod';
import { count, fn, withMethods } from './strict-options.js';

// The strict schemas of the code sandbox's `create*` options (createCodeSandbox, createCodeRunner,
// createTypeStripper), each checked once at its boundary.

const bytes = (what: string) => z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe(what);
const atLeastZero = (what: string) => z.number().int().min(0).max(2_147_483_647).describe(what);

/** The strict schema of `createTypeStripper`'s options. */
export const typeStripperOptionsSchema = z
  .object({
    maxEntries: atLeastZero('results kept in the cache, 0 disables it, e.g. 128').optional(),
    maxBytes: atLeastZero('bytes of cached output, e.g. 16777216').optional(),
  })
  .strict()
  .describe('createTypeStripper options, e.g. { maxEntries: 128 }');

/** The strict schema of `createCodeSandbox`'s options. */
export const codeSandboxOptionsSchema = z
  .object({
    workers: count('worker threads of the sandbox, e.g. 2').optional(),
    maxBridgeCalls: count('bridge calls per execution, e.g. 10000').optional(),
    maxInflightCalls: count('bridge calls of one execution in flight at once, e.g. 16').optional(),
    maxMessageBytes: bytes('bytes of one bridge argument, result or final value, e.g. 8388608').optional(),
    maxLogBytes: bytes('bytes of captured console output, e.g. 65536').optional(),
    stackBytes: bytes('guest stack size in bytes, e.g. 131072').optional(),
    maxNestedRuns: atLeastZero('nested runs alive at once under one top-level run, e.g. 8').optional(),
    typeStripper: withMethods('strips TypeScript, e.g. createTypeStripper()', 'strip').optional(),
  })
  .strict()
  .describe('createCodeSandbox options, e.g. { workers: 2 }');

/** The strict schema of `createCodeRunner`'s options. */
export const codeRunnerOptionsSchema = z
  .object({
    adf: withMethods("the agent's open .adf file, e.g. openAdf('agent.adf')", 'close', 'config'),
    sandbox: withMethods('the code sandbox, e.g. createCodeSandbox()', 'run'),
    gate: fn("the agent's gate, late-bound, e.g. () => gate"),
    methodQuotas: z
      .record(z.string().min(1), atLeastZero('most calls of this method in one execution, e.g. 10'))
      .optional()
      .describe('most calls of a method per execution, e.g. { model_invoke: 10 }; {} or absent: the defaults'),
  })
  .strict()
  .describe('createCodeRunner options, e.g. { adf, sandbox, gate: () => gate }');
