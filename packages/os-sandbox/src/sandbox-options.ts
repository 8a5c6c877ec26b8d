import { z } from 'zod';
import { checkOptions, isTrustError } from '@trust/core';
import { createEgressGuard, type GuardOptions } from '@trust/egress';
import type { CreateSandboxOptions } from './sandbox-types.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** An injected object (checked by shape, kept as given): must be an object with these methods. */
export const object = (what: string, ...methods: readonly string[]) =>
  z.custom<object>((v) => isObject(v) && methods.every((m) => typeof v[m] === 'function'), {
    message: `must be ${what}`,
  });

/** A value that must be a function; its signature is the TypeScript type's business. */
export const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', { message: `must be ${what}` });

/**
 * The guard options are `@trust/egress`'s: its own strict check runs here, at `createSandbox`,
 * not only when the first networked run starts its proxy. Each of its problems (a misspelt key
 * with "did you mean", a bad value) becomes one at `guard.<path>`.
 */
function checkGuardOptions(guard: object, ctx: z.RefinementCtx): void {
  try {
    createEgressGuard(guard as GuardOptions);
  } catch (err) {
    if (!isTrustError(err, 'EGRESS_OPTIONS_INVALID')) throw err;
    for (const p of err.problems ?? []) {
      ctx.addIssue({
        code: 'custom',
        path: p.path === undefined || p.path === '' ? [] : p.path.split('.'),
        message: p.hint === undefined ? p.message : `${p.message} (${p.hint})`,
      });
    }
  }
}

/** The one schema of `createSandbox`'s options: strict (an unknown key is a mistake), every field described. */
const createSandboxOptionsSchema = z
  .object({
    egress: object('an EgressPolicy (an object with authorizeHttp())', 'authorizeHttp')
      .optional()
      .describe(
        'judges every http/tcp/udp request; required for those capabilities; e.g. allowHosts(["api.example.com"])',
      ),
    guard: object('address-guard options ({ mode, resolve, ... })')
      .superRefine(checkGuardOptions)
      .optional()
      .describe("the per-run proxy's address guard; undefined = the policy's network.guard; e.g. { mode: 'strict' }"),
    audit: object('an AuditSink (an object with record())', 'record')
      .optional()
      .describe('where spawn, degraded, exit and egress events go; undefined = nowhere; e.g. createMemoryAuditSink()'),
    env: object('a record of environment variables')
      .optional()
      .describe('source of base and granted variables; undefined = process.env; e.g. { API_TOKEN: "…" }'),
    bwrapPath: z
      .string()
      .min(1)
      .optional()
      .describe('bubblewrap binary; undefined = found on the host; e.g. "/usr/bin/bwrap"'),
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
      .describe('where compiled launchers are cached; undefined = the per-user cache; e.g. "/var/cache/trust"'),
    launcherVerify: z
      .enum(['manifest', 'rebuild'])
      .optional()
      .describe("how the cached launcher is trusted; undefined = 'manifest'"),
    workDir: z
      .string()
      .min(1)
      .optional()
      .describe(
        'host directory for per-run sockets and overlay work; undefined = a fresh private temp dir; e.g. "/run/trust"',
      ),
    probe: object('a SandboxProbe (from probeSandbox())')
      .optional()
      .describe('host facts; undefined = measured; e.g. await probeSandbox()'),
    createProxy: fn('an EgressProxyFactory function')
      .optional()
      .describe(
        "starts each run's egress proxy; undefined = @trust/egress; e.g. (request) => createEgressProxy(request)",
      ),
    placeholderLingerMs: z
      .number()
      .min(0)
      .max(2_147_483_647)
      .optional()
      .describe('how long host placeholders stay after the last run; undefined = 3000'),
    spawnServer: z
      .boolean()
      .optional()
      .describe("start runs through the launcher's spawn server; undefined = true; e.g. false"),
    prestart: z.boolean().optional().describe('prepare the next run once one has ended; undefined = true; e.g. false'),
    platform: z.enum(['linux', 'darwin']).optional().describe('overrides the detected platform (tests), e.g. "linux"'),
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
 * Checks `options` of the function `where` of this package against its strict schema, once, at
 * the boundary: throws `SANDBOX_POLICY_INVALID` listing every problem (an unknown key is a
 * `SANDBOX_POLICY_UNKNOWN_KEY` problem with "did you mean"), each with a valid example as hint
 * (`examples[field]`, else the field's description). Returns the options as given.
 *
 * @example
 * checkSandboxOptions('probeSandbox', probeOptionsSchema, options);
 */
export function checkSandboxOptions<T>(
  where: string,
  schema: z.ZodType,
  options: T,
  examples: Readonly<Record<string, string>> = {},
): T {
  return checkOptions(
    {
      where,
      schema,
      invalidCode: 'SANDBOX_POLICY_INVALID',
      unknownKeyCode: 'SANDBOX_POLICY_UNKNOWN_KEY',
      hintFor: (path) => (path[0] === undefined ? undefined : examples[path[0]]),
    },
    options,
  );
}

/**
 * Validates `createSandbox`'s options once, at the boundary, with one strict schema: every
 * problem at once in `error.problems` (`SANDBOX_POLICY_INVALID`; an unknown key is a
 * `SANDBOX_POLICY_UNKNOWN_KEY` problem with "did you mean"), each with a hint. Returns the
 * options as given (functions and objects are the caller's own).
 *
 * @example
 * const options = parseSandboxOptions({ placeholderLingerMs: 0 });
 */
export function parseSandboxOptions(input: unknown): CreateSandboxOptions {
  return checkSandboxOptions(
    'createSandbox',
    createSandboxOptionsSchema,
    input ?? {},
    EXAMPLES,
  ) as CreateSandboxOptions;
}
