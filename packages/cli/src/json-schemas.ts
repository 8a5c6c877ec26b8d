// The documented shapes of `trust … --json`. Every JSON document is
//   { v: 1, ok: true, command, result }   or   { v: 1, ok: false, command, error }.
// The integration tests validate the built binary's output against these schemas, so a change
// of shape is a visible diff here and in the README.
import { z } from 'zod';

/** The error part of a failed command. */
export const jsonErrorSchema = z
  .object({
    code: z.string().min(1).describe('stable error code, e.g. CLI_USAGE_UNKNOWN_OPTION or NOT_IMPLEMENTED'),
    message: z.string().describe('what happened and why'),
    hint: z.string().optional().describe('how to fix it'),
    exitCode: z.number().int().describe('the process exit code'),
    problems: z
      .array(z.object({ code: z.string(), message: z.string(), hint: z.string().optional(), path: z.string().optional() }).strict())
      .optional()
      .describe('every problem found, when the input had several'),
  })
  .strict();

/** A failed command. */
export const failureSchema = z
  .object({ v: z.literal(1), ok: z.literal(false), command: z.string(), error: jsonErrorSchema })
  .strict();

/** Wraps a command's result schema into the success document. */
export function successSchema<T extends z.ZodType>(command: string, result: T) {
  return z.object({ v: z.literal(1), ok: z.literal(true), command: z.literal(command), result }).strict();
}

/** `trust --version --json`. */
export const versionSchema = successSchema('version', z.object({ version: z.string(), node: z.string() }).strict());

/** One doctor check. */
export const doctorCheckSchema = z
  .object({
    id: z.enum(['node', 'bwrap', 'userns', 'netns', 'seccomp', 'landlock', 'seatbelt', 'chromium', 'sqlite']),
    label: z.string(),
    status: z.enum(['ok', 'missing', 'degraded', 'unknown', 'skipped']),
    detail: z.string(),
    remedy: z.string().optional(),
  })
  .strict();

/** `trust doctor --json`. */
export const doctorSchema = successSchema(
  'doctor',
  z.object({ platform: z.string(), ok: z.boolean(), checks: z.array(doctorCheckSchema) }).strict(),
);

/** `trust egress check --json`. */
export const egressCheckSchema = successSchema(
  'egress check',
  z
    .object({
      url: z.string(),
      mode: z.enum(['default', 'allow-local', 'strict']),
      allow: z.boolean(),
      rule: z.string().optional(),
      code: z.string().optional(),
      reason: z.string().optional(),
      hint: z.string().optional(),
      addresses: z.array(z.string()),
      steps: z.array(
        z.object({ step: z.enum(['parse', 'scheme', 'userinfo', 'host', 'resolve', 'classify', 'rule', 'verdict', 'policy']), ok: z.boolean(), detail: z.string() }).strict(),
      ),
    })
    .strict(),
);

/** `trust sandbox --json`. */
export const sandboxSchema = successSchema(
  'sandbox',
  z
    .object({
      runId: z.string(),
      code: z.number().int().nullable(),
      signal: z.string().nullable(),
      timedOut: z.boolean(),
      truncated: z.boolean(),
      durationMs: z.number(),
      degraded: z.array(z.string()),
      violations: z.array(z.object({ kind: z.string(), action: z.string(), target: z.string(), code: z.string().optional() }).strict()),
      stdout: z.string(),
      stderr: z.string(),
    })
    .strict(),
);
