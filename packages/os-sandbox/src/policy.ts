import { z } from 'zod';
import { TrustError, parseCapabilities, type CapabilitySet, type Problem } from '@trust/core';

/** Weaker modes a caller may accept by name. Anything not named here fails closed. */
export const DEGRADED_MODES = [
  'shared-network',
  'no-proc',
  'no-userns-lock',
  'no-seccomp',
  'no-pids-limit',
  'no-memory-limit',
  'host-placeholders',
  'open-unix-sockets',
] as const;
/** One named weaker mode (see `DEGRADED_MODES` and the README). */
export type DegradedMode = (typeof DEGRADED_MODES)[number];

const absolute = z
  .string()
  .min(1)
  .refine((p) => p.startsWith('/') && !p.includes('\0'), { message: 'must be an absolute path without NUL bytes' });

// One name inside every writable root: no '/', '.', '..', NUL or control bytes; a trailing '/'
// marks a directory.
const protectedName = z
  .string()
  .regex(/^(?!\.{1,2}\/?$)[^/\u0000-\u001f\u007f]+\/?$/, {
    message:
      'must be one name inside the writable root (e.g. ".tool-versions", or ".continue/" ' +
      'for a directory), without "/" inside, ".", ".." or control characters',
  })
  .refine((n) => n !== '.git' && n !== '.git/', {
    message: '.git is always protected (read-only whole when it exists)',
  });

const socketPath = absolute.refine(
  (p) => !/[\u0001-\u001f\u007f]/.test(p) && !p.split('/').some((c) => c === '.' || c === '..') && !p.endsWith('/'),
  {
    message: 'must be a canonical absolute path of a unix socket (no ".", "..", trailing "/" or control characters)',
  },
);

const limitsSchema = z
  .object({
    timeMs: z
      .number()
      .int()
      .positive()
      .max(86_400_000)
      .optional()
      .describe('wall-clock limit per run in ms; undefined = 60000'),
    outputBytes: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('bytes kept per stream (stdout, stderr); undefined = 1 MiB'),
    memoryBytes: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("memory limit: the run's memory cgroup where one is writable, else RLIMIT_AS; undefined = none"),
    pids: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('process limit (cgroup pids.max; RLIMIT_NPROC as well); undefined = none'),
    files: z.number().int().positive().optional().describe('open-file limit (RLIMIT_NOFILE); undefined = inherited'),
    fileSizeBytes: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('largest file a run may write (RLIMIT_FSIZE); undefined = none'),
  })
  .strict();

/**
 * The sandbox policy as data (format `v: 1`). Validated once by `parseSandboxPolicy`.
 *
 * @example
 * const policy: SandboxPolicyInput = { v: 1, capabilities: ['fs:rw:/srv/project', 'env:LOG_LEVEL', 'stdout'] };
 */
export const sandboxPolicySchema = z
  .object({
    v: z.literal(1).describe('format version; always 1'),
    capabilities: z
      .array(z.string())
      .default([])
      .describe(
        'capability strings (env:NAME, fs:ro:<dir>, fs:rw:<dir>, stdin, ' +
          'stdout, stderr, http, tcp, ...); [] grants nothing',
      ),
    systemRoots: z
      .array(absolute)
      .default([])
      .describe('extra read-only system directories (e.g. a Node install prefix); [] = only the built-in system set'),
    hiddenPaths: z
      .array(absolute)
      .default([])
      .describe(
        'paths replaced by an empty read-only directory even when inside ' +
          'a granted root; [] = only the built-in hidden set',
      ),
    protectedPaths: z
      .array(protectedName)
      .default([])
      .describe(
        'names protected read-only in every writable root on top of the built-in list ' +
          '("name" a file, "name/" a directory); [] = only the built-in list',
      ),
    unixSockets: z
      .array(socketPath)
      .default([])
      .describe(
        'host unix sockets the run may connect to, bound in at the same path (e.g. ' +
          '"/run/user/1000/app.sock"); [] = creating AF_UNIX sockets is refused (socketpair still ' +
          'works)',
      ),
    limits: limitsSchema.default({}).describe('time, output, memory, process and file limits'),
    network: z
      .object({
        guard: z
          .enum(['strict', 'default', 'allow-local'])
          .default('strict')
          .describe('address guard mode of the per-run egress proxy'),
        proxyPort: z
          .number()
          .int()
          .min(1)
          .max(65535)
          .default(3128)
          .describe('loopback port the proxy is reachable on inside the sandbox'),
      })
      .strict()
      .default({ guard: 'strict', proxyPort: 3128 })
      .describe('how http/tcp capabilities reach the egress proxy'),
    allowDegraded: z
      .array(z.enum(DEGRADED_MODES))
      .default([])
      .describe('weaker modes accepted by name; [] = fail closed on any'),
  })
  .strict();

/** The policy as a caller writes it. */
export type SandboxPolicyInput = z.input<typeof sandboxPolicySchema>;

/** The validated, frozen policy. */
export interface SandboxPolicy {
  readonly v: 1;
  readonly capabilities: CapabilitySet;
  readonly systemRoots: readonly string[];
  readonly hiddenPaths: readonly string[];
  /** Extra protected names (`name` or `name/`) inside every writable root. */
  readonly protectedPaths: readonly string[];
  /** Host unix sockets the run may connect to; empty = no `socket(AF_UNIX)` at all. */
  readonly unixSockets: readonly string[];
  readonly limits: Readonly<z.output<typeof limitsSchema>>;
  readonly network: { readonly guard: 'strict' | 'default' | 'allow-local'; readonly proxyPort: number };
  readonly allowDegraded: readonly DegradedMode[];
}

/** Default wall-clock limit per run. */
export const DEFAULT_TIME_MS = 60_000;
/** Default bytes kept per output stream. */
export const DEFAULT_OUTPUT_BYTES = 1024 * 1024;

/**
 * Validates a policy once, at the boundary. Every problem is reported at once in
 * `error.problems`; the error code is `SANDBOX_POLICY_INVALID`. An already parsed policy is
 * returned as is.
 *
 * @example
 * const policy = parseSandboxPolicy({ v: 1, capabilities: ['fs:rw:/srv/project'] });
 * policy.capabilities.fsGrant('/srv/project/a'); // { access: 'rw', root: '/srv/project' }
 */
export function parseSandboxPolicy(input: unknown): SandboxPolicy {
  if (isSandboxPolicy(input)) return input;
  const r = sandboxPolicySchema.safeParse(input);
  if (!r.success) {
    const problems: Problem[] = r.error.issues.map((issue) => ({
      code: 'SANDBOX_POLICY_FIELD',
      message: issue.message,
      path: issue.path.join('.'),
      hint:
        `a valid policy looks like ` +
        `{"v":1,"capabilities":["fs:rw:/srv/project","stdout"],"limits":{"timeMs":30000}}`,
      severity: 'error',
    }));
    throw new TrustError(
      'SANDBOX_POLICY_INVALID',
      `sandbox policy is invalid: ${problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ')}`,
      {
        problems,
        hint: problems[0]?.hint,
      },
    );
  }
  let capabilities: CapabilitySet;
  try {
    capabilities = parseCapabilities(r.data.capabilities);
  } catch (err) {
    const inner =
      err instanceof TrustError ? err.problems.map((p) => ({ ...p, path: `capabilities${p.path ?? ''}` })) : [];
    throw new TrustError(
      'SANDBOX_POLICY_INVALID',
      `sandbox policy has invalid capabilities: ${(err as Error).message}`,
      {
        cause: err,
        problems: inner,
        hint: inner[0]?.hint,
      },
    );
  }
  const policy: SandboxPolicy = {
    v: 1,
    capabilities,
    systemRoots: Object.freeze([...r.data.systemRoots]),
    hiddenPaths: Object.freeze([...r.data.hiddenPaths]),
    protectedPaths: Object.freeze([...new Set(r.data.protectedPaths)]),
    unixSockets: Object.freeze([...new Set(r.data.unixSockets)]),
    limits: Object.freeze({ ...r.data.limits }),
    network: Object.freeze({ ...r.data.network }),
    allowDegraded: Object.freeze([...r.data.allowDegraded]),
  };
  Object.defineProperty(policy, BRAND, { value: true });
  return Object.freeze(policy);
}

const BRAND = Symbol('trust.sandbox-policy');

function isSandboxPolicy(value: unknown): value is SandboxPolicy {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
