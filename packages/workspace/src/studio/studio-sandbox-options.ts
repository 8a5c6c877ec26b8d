import { z } from 'zod';
import { envSchema, fn } from '../options.js';

// The strict schema of `createStudioSandbox`'s options, checked once at its boundary.

const count = (what: string) => z.number().int().positive().max(2_147_483_647).describe(what);

const capsSchema = z
  .object({
    maxTimeMs: count('wall-clock limit of one run in ms, e.g. 600000'),
    maxOutputBytes: count('bytes kept per output stream of one run, e.g. 262144'),
  })
  .strict();

/** The strict schema of `createStudioSandbox`'s options. */
export const studioSandboxOptionsSchema = z
  .object({
    runsFile: z.string().min(1).describe('the run log file, e.g. "<TRUST_HOME>/sandbox-runs.jsonl"'),
    env: envSchema('granted variables and header values, e.g. process.env'),
    launcherCacheDir: z.string().min(1).describe('where the sandbox launcher is cached, e.g. "<TRUST_HOME>/cache"'),
    maxConcurrent: count('runs starting or running at once, e.g. 4').optional(),
    maxKept: count('runs kept for the studio, e.g. 50').optional(),
    caps: capsSchema.optional().describe('limits of one run, e.g. { maxTimeMs: 600000, maxOutputBytes: 262144 }'),
    protectedPorts: fn('loopback ports no run may reach, e.g. () => [server.port]').optional(),
    onRecordError: fn('told when a run could not be recorded, e.g. (e) => console.error(e)').optional(),
  })
  .strict()
  .describe('createStudioSandbox options, e.g. { runsFile, env: process.env, launcherCacheDir }');
