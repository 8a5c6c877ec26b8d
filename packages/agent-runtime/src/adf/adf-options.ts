import { z } from 'zod';
import { fn } from '../options/strict-options.js';

/** The strict schema of `createAdf`'s options, checked once at the boundary (the template by the config schema). */
export const createAdfOptionsSchema = z
  .object({
    template: z.unknown().optional().describe('the starting config, e.g. defaultAgentConfig({ name: "helper" })'),
    schemaVersion: z.number().int().positive().optional().describe('schema version to create (tests only), e.g. 2'),
    clock: fn('clock, e.g. () => new Date()').optional(),
  })
  .strict()
  .describe('createAdf options, e.g. { template: defaultAgentConfig({ name: "helper" }) }');
