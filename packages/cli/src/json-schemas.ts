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
      .array(
        z
          .object({ code: z.string(), message: z.string(), hint: z.string().optional(), path: z.string().optional() })
          .strict(),
      )
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
    id: z.enum([
      'node',
      'bwrap',
      'userns',
      'netns',
      'seccomp',
      'landlock',
      'cc',
      'socat',
      'seatbelt',
      'chromium',
      'sqlite',
    ]),
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
      policy: z.string().optional(),
      addresses: z.array(z.string()),
      steps: z.array(
        z
          .object({
            step: z.enum(['parse', 'scheme', 'userinfo', 'host', 'resolve', 'classify', 'rule', 'verdict', 'policy']),
            ok: z.boolean(),
            detail: z.string(),
          })
          .strict(),
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
      violations: z.array(
        z.object({ kind: z.string(), action: z.string(), target: z.string(), code: z.string().optional() }).strict(),
      ),
      stdout: z.string(),
      stderr: z.string(),
    })
    .strict(),
);

/** An audit event as the JSON output carries it (format v: 1). */
export const auditEventSchema = z
  .object({
    v: z.literal(1),
    time: z.string(),
    principal: z.object({ kind: z.string(), id: z.string(), agent: z.string().optional() }).strict(),
    action: z.string(),
    target: z.string(),
    decision: z.enum(['allow', 'deny']),
    rule: z.string().optional(),
    code: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    prev: z.string().regex(/^[0-9a-f]{64}$/),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

/** `trust audit verify --json`. */
export const auditVerifySchema = successSchema(
  'audit verify',
  z
    .object({
      file: z.string(),
      format: z.enum(['jsonl', 'adf']),
      ok: z.boolean(),
      state: z.enum(['intact', 'torn-tail', 'tampered']),
      count: z.number().int(),
      head: z.string().optional(),
      broken: z
        .object({ index: z.number().int(), line: z.number().int().optional(), code: z.string(), reason: z.string() })
        .strict()
        .optional(),
      repaired: z
        .object({ line: z.number().int(), removedBytes: z.number().int(), removed: z.string() })
        .strict()
        .optional(),
    })
    .strict(),
);

/** `trust audit tail --json`. */
export const auditTailSchema = successSchema(
  'audit tail',
  z
    .object({
      file: z.string(),
      total: z.number().int(),
      chain: z.object({ ok: z.boolean(), brokenAt: z.number().int().optional() }).strict(),
      tornTail: z.object({ line: z.number().int() }).strict().optional(),
      events: z.array(auditEventSchema),
    })
    .strict(),
);

/** `trust egress fetch --json`. */
export const egressFetchSchema = successSchema(
  'egress fetch',
  z
    .object({
      url: z.string(),
      status: z.number().int(),
      headers: z.record(z.string(), z.string()),
      body: z.string(),
      bytes: z.number().int(),
      audit: z.array(auditEventSchema),
    })
    .strict(),
);

/** `trust egress proxy --json` (the first line; audit events follow as JSON lines). */
export const egressProxySchema = successSchema(
  'egress proxy',
  z
    .object({
      listen: z.union([
        z.object({ host: z.string(), port: z.number().int() }).strict(),
        z.object({ path: z.string() }).strict(),
      ]),
      url: z.string().optional(),
      principal: z.string(),
    })
    .strict(),
);

/** `trust keygen --json`. */
export const keygenSchema = successSchema(
  'keygen',
  z
    .object({
      keyId: z.string().regex(/^[0-9a-f]{16}$/),
      alg: z.literal('ed25519'),
      privateKeyFile: z.string(),
      publicKeyFile: z.string(),
    })
    .strict(),
);

/** `trust package init --json`. */
export const packageInitSchema = successSchema(
  'package init',
  z.object({ dir: z.string(), name: z.string(), files: z.array(z.string()) }).strict(),
);

/** `trust package build --json`. */
export const packageBuildSchema = successSchema(
  'package build',
  z
    .object({
      dir: z.string(),
      out: z.string(),
      bytes: z.number().int(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      files: z.array(z.string()),
      signed: z.boolean(),
    })
    .strict(),
);

/** `trust package inspect --json`. */
export const packageInspectSchema = successSchema(
  'package inspect',
  z
    .object({
      package: z.string(),
      capabilities: z.array(z.object({ capability: z.string(), risk: z.string() }).strict()),
      filesystem: z.array(
        z
          .object({
            path: z.string(),
            access: z.enum(['ro', 'rw', 'none']),
            within: z.string().optional(),
            onHost: z.enum(['dir', 'file', 'symlink', 'missing', 'other']),
          })
          .strict(),
      ),
      name: z.string(),
      version: z.string(),
      interface: z.string().optional(),
      interfaceVersion: z.number().int().optional(),
      signature: z.union([
        z.object({ status: z.literal('valid'), keyId: z.string() }).strict(),
        z.object({ status: z.literal('unsigned') }).strict(),
        z.object({ status: z.enum(['invalid', 'untrusted-key']), reason: z.string() }).strict(),
      ]),
      component: z
        .object({ path: z.string(), digest: z.string(), size: z.number().int(), interfaceHash: z.string() })
        .strict(),
      imports: z.array(z.string()),
      exports: z.array(z.string()),
      unsatisfiedImports: z.array(z.unknown()),
    })
    .strict(),
);

/** `trust package sign --json`. */
export const packageSignSchema = successSchema(
  'package sign',
  z.object({ package: z.string(), keyId: z.string(), files: z.number().int(), signatureFile: z.string() }).strict(),
);

/** `trust package verify --json`. */
export const packageVerifySchema = successSchema(
  'package verify',
  z.object({ package: z.string(), keyId: z.string(), alg: z.literal('ed25519'), manifestDigest: z.string() }).strict(),
);

/** `trust run --json`. */
export const runSchema = successSchema(
  'run',
  z
    .object({
      plugin: z.string(),
      export: z.string(),
      result: z.unknown(),
      stdout: z.string(),
      stderr: z.string(),
      capabilities: z.array(z.string()),
      signer: z.string().optional(),
      digest: z.string(),
      audit: z.array(auditEventSchema),
    })
    .strict(),
);

/** `trust studio --json` (the first line; the server then runs until interrupted). */
export const studioSchema = successSchema(
  'studio',
  z
    .object({
      url: z.string().regex(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+$/),
      port: z.number().int(),
      workspace: z.string(),
      demo: z.boolean(),
      created: z.boolean(),
      agents: z.array(z.string()),
    })
    .strict(),
);

/** `trust agent new --json`. */
export const agentNewSchema = successSchema(
  'agent new',
  z
    .object({
      file: z.string(),
      name: z.string(),
      did: z.string().regex(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/),
      template: z.string(),
      tools: z.number().int(),
      restricted: z.array(z.string()),
    })
    .strict(),
);

/** `trust agent inspect --json`. */
export const agentInspectSchema = successSchema(
  'agent inspect',
  z
    .object({
      file: z.string(),
      name: z.string(),
      description: z.string(),
      did: z.string().nullable(),
      schemaVersion: z.number().int(),
      autonomous: z.boolean(),
      provider: z.string(),
      tools: z.array(
        z
          .object({
            name: z.string(),
            enabled: z.boolean(),
            visible: z.boolean(),
            restricted: z.boolean(),
            locked: z.boolean(),
          })
          .strict(),
      ),
      lockedFields: z.array(z.string()),
      triggers: z.array(z.object({ type: z.string(), scope: z.string(), lambda: z.string().optional() }).strict()),
      codeExecution: z.record(z.string(), z.unknown()),
      mcpServers: z.array(z.string()),
      mcp: z.array(
        z
          .object({
            name: z.string(),
            transport: z.enum(['stdio', 'http']),
            target: z.string(),
            grants: z.array(z.string()),
            network: z.enum(['none', 'egress-policy']),
            restricted: z.boolean(),
            tools: z.array(z.object({ name: z.string(), risk: z.enum(['disabled', 'approval', 'runs']) }).strict()),
            lastSeen: z
              .object({ event: z.string(), level: z.string(), message: z.string(), at: z.string() })
              .strict()
              .nullable(),
          })
          .strict(),
      ),
      pendingApprovals: z.array(z.object({ id: z.string(), tool: z.string() }).strict()),
      audit: z
        .object({ ok: z.boolean(), count: z.number().int().optional(), brokenAt: z.number().int().optional() })
        .strict(),
      timers: z.array(
        z.object({ id: z.number().int(), scope: z.array(z.string()), lambda: z.string().nullable() }).strict(),
      ),
      lambdas: z.array(z.object({ path: z.string(), authorized: z.boolean() }).strict()),
      baseUrl: z.string().nullable(),
      review: z
        .object({
          contentHash: z.string(),
          ownerDid: z.string().nullable(),
          status: z.enum(['accepted', 'not-reviewed']),
        })
        .strict(),
    })
    .strict(),
);

/** `trust agent review --json`. */
export const agentReviewSchema = successSchema(
  'agent review',
  z
    .object({
      file: z.string(),
      status: z.enum(['accepted', 'not-reviewed']),
      ownerDid: z.string().nullable(),
      surface: z
        .object({
          v: z.literal(1),
          contentHash: z.string(),
          ownerDid: z.string().nullable(),
          agentDid: z.string().nullable(),
          name: z.string(),
          autonomous: z.boolean(),
          tools: z.array(
            z.object({ name: z.string(), visible: z.boolean(), restricted: z.boolean(), locked: z.boolean() }).strict(),
          ),
          triggers: z.array(
            z
              .object({ type: z.string(), scope: z.string(), lambda: z.string().nullable(), filter: z.unknown() })
              .strict(),
          ),
          timers: z.array(
            z
              .object({
                id: z.number().int(),
                schedule: z.unknown(),
                scope: z.array(z.string()),
                lambda: z.string().nullable(),
              })
              .strict(),
          ),
          lambdas: z.array(z.object({ path: z.string(), authorized: z.boolean() }).strict()),
          middleware: z.object({ inbox: z.array(z.string()), outbox: z.array(z.string()), fetch: z.array(z.string()) }),
          mcpServers: z.array(
            z
              .object({
                name: z.string(),
                command: z.string().nullable(),
                args: z.array(z.string()),
                url: z.string().nullable(),
              })
              .strict(),
          ),
          model: z
            .object({
              provider: z.string(),
              modelId: z.string().nullable(),
              baseUrl: z.string().nullable(),
              apiKeyEnv: z.string().nullable(),
            })
            .strict(),
          messaging: z
            .object({
              receive: z.boolean(),
              mode: z.string(),
              visibility: z.string(),
              allowList: z.array(z.string()),
              blockList: z.array(z.string()),
            })
            .strict(),
          codeExecution: z.record(z.string(), z.unknown()),
        })
        .strict(),
      changes: z.array(z.object({ section: z.string(), before: z.unknown(), after: z.unknown() }).strict()),
      accepted: z
        .object({ contentHash: z.string(), deauthorized: z.array(z.string()), authorized: z.array(z.string()) })
        .strict()
        .optional(),
    })
    .strict(),
);

/** `trust agent chat --json`. */
export const agentChatSchema = successSchema(
  'agent chat',
  z
    .object({
      file: z.string(),
      provider: z.enum(['scripted', 'openai-compatible', 'anthropic']),
      model: z.string(),
      turns: z.array(z.object({ role: z.string(), content: z.unknown() }).strict()),
      approvals: z.array(
        z.object({ tool: z.string(), args: z.unknown(), decision: z.enum(['approve', 'deny']) }).strict(),
      ),
      egress: z.array(auditEventSchema),
    })
    .strict(),
);

const taskViewSchema = z
  .object({
    id: z.string(),
    agent: z.string(),
    tool: z.string(),
    args: z.unknown(),
    reason: z.string(),
    status: z.string(),
    createdAt: z.string().optional(),
    feedback: z.string().optional(),
  })
  .passthrough();

/** `trust agent approve|deny --json` with a task id. */
export const agentResolveSchema = (command: 'agent approve' | 'agent deny') =>
  successSchema(command, z.object({ task: taskViewSchema }).strict());

/** `trust agent approve|deny --json` without a task id (the list). */
export const agentPendingSchema = (command: 'agent approve' | 'agent deny') =>
  successSchema(command, z.object({ pending: z.array(taskViewSchema) }).strict());
