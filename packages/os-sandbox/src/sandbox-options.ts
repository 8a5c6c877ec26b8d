import { z } from 'zod';
import { TrustError, type Problem } from '@trust/core';
import type { CreateSandboxOptions } from './sandbox-types.js';

const object = (what: string) =>
  z.custom<object>((v) => typeof v === 'object' && v !== null, { message: `must be ${what}` });
const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', { message: `must be ${what}` });

/** The one schema of `createSandbox`'s options: strict (an unknown key is a mistake), every field described. */
const createSandboxOptionsSchema = z
  .object({
    egress: object('an EgressPolicy (e.g. allowHosts([...]))')
      .optional()
      .describe('judges every http/tcp/udp request; required for those capabilities'),
    guard: object('address-guard options ({ mode, resolve, ... })')
      .optional()
      .describe("the per-run proxy's address guard; undefined = the policy's network.guard"),
    audit: z
      .custom<object>(
        (v) => typeof v === 'object' && v !== null && typeof (v as { record?: unknown }).record === 'function',
        { message: 'must be an AuditSink (an object with record())' },
      )
      .optional()
      .describe('where spawn, degraded, exit and egress events go; undefined = nowhere'),
    env: object('a record of environment variables')
      .optional()
      .describe('source of base and granted variables; undefined = process.env'),
    bwrapPath: z.string().min(1).optional().describe('bubblewrap binary; undefined = found on the host'),
    launcher: z
      .object({
        path: z.string().min(1).describe('the prebuilt launcher'),
        sha256: z.string().min(1).describe('its expected SHA-256'),
      })
      .strict()
      .optional()
      .describe('a prebuilt launcher; undefined = compiled into the per-user cache'),
    bridge: z
      .enum(['launcher', 'socat'])
      .optional()
      .describe("egress bridge and limits: 'launcher' (default) or 'socat' (the fallback)"),
    launcherCacheDir: z
      .string()
      .min(1)
      .optional()
      .describe('where compiled launchers are cached; undefined = the per-user cache'),
    launcherVerify: z
      .enum(['manifest', 'rebuild'])
      .optional()
      .describe("how the cached launcher is trusted; undefined = 'manifest'"),
    workDir: z
      .string()
      .min(1)
      .optional()
      .describe('host directory for per-run sockets and overlay work; undefined = a fresh private temp dir'),
    probe: object('a SandboxProbe (from probeSandbox())')
      .optional()
      .describe('host facts; undefined = measured by probeSandbox'),
    createProxy: fn('an EgressProxyFactory function')
      .optional()
      .describe("starts each run's egress proxy; undefined = @trust/egress"),
    placeholderLingerMs: z
      .number()
      .min(0)
      .optional()
      .describe('how long host placeholders stay after the last run; undefined = 3000'),
    spawnServer: z.boolean().optional().describe("start runs through the launcher's spawn server; undefined = true"),
    prestart: z.boolean().optional().describe('prepare the next run once one has ended; undefined = true'),
    platform: z.enum(['linux', 'darwin']).optional().describe('overrides the detected platform (tests)'),
  })
  .strict();

/** A valid example per field, for the hint of a problem there. */
const EXAMPLES: Readonly<Record<string, string>> = {
  placeholderLingerMs: 'pass e.g. { placeholderLingerMs: 3000 }, or 0 to remove placeholders after every run',
  bridge: 'pass { bridge: "launcher" } or { bridge: "socat" }',
  launcherVerify: 'pass { launcherVerify: "manifest" } or { launcherVerify: "rebuild" }',
  launcher: 'pass { launcher: { path: "/opt/trust/launcher", sha256: "<64 hex digits>" } }',
};

/**
 * Validates `createSandbox`'s options once, at the boundary, with one strict schema: every
 * problem at once in `error.problems` (`SANDBOX_POLICY_INVALID`), each with a hint. Returns the
 * options as given (functions and objects are the caller's own).
 *
 * @example
 * const options = parseSandboxOptions({ placeholderLingerMs: 0 });
 */
export function parseSandboxOptions(input: unknown): CreateSandboxOptions {
  const r = createSandboxOptionsSchema.safeParse(input ?? {});
  if (r.success) return (input ?? {}) as CreateSandboxOptions;
  const problems: Problem[] = r.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    const unknownKeys = issue.code === 'unrecognized_keys' ? ((issue as { keys?: string[] }).keys ?? []) : [];
    return {
      code: 'SANDBOX_OPTION_FIELD',
      message: issue.message,
      path: unknownKeys.length > 0 ? unknownKeys.join(',') : issue.path.join('.'),
      hint:
        EXAMPLES[key] ??
        (unknownKeys.length > 0
          ? `remove ${unknownKeys.join(', ')}; known ` +
            `options: ${Object.keys(createSandboxOptionsSchema.shape).join(', ')}`
          : `see the ${key || 'options'} field in the README's createSandbox options`),
      severity: 'error',
    };
  });
  throw new TrustError(
    'SANDBOX_POLICY_INVALID',
    `createSandbox options are invalid: ${problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ')}`,
    {
      problems,
      hint: problems[0]?.hint,
    },
  );
}
