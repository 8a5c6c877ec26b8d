import { z } from 'zod';
import { count, withMethods } from '../options/strict-options.js';

/** The strict schema of `createShell`'s options, checked once at the boundary. */
export const shellOptionsSchema = z
  .object({
    gate: withMethods('the gate commands call tools through, e.g. createShellGate(() => gate)', 'call'),
    commands: z.instanceof(Map).optional().describe('commands by name, e.g. createDefaultCommands()'),
    maxDepth: count('nesting limit for eval, sh -c, source, functions and $(…), e.g. 32').optional(),
    maxCommands: count('commands per run, e.g. 10000').optional(),
    maxLoopIterations: count('iterations of one loop, e.g. 10000').optional(),
    maxOutputBytes: count('bytes kept of stdout and of stderr, e.g. 1048576').optional(),
    rejectionCodes: z
      .array(z.string().min(1))
      .optional()
      .describe('deny codes that mean a human rejected the approval, e.g. ["APPROVAL_REJECTED"]'),
  })
  .strict()
  .describe('createShell options, e.g. { gate }');
