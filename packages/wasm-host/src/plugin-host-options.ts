import type { GuardOptions } from '@trust/egress';
import { checkOptions, type AuditSink, type EgressPolicy } from '@trust/core';
import { z } from 'zod';
import { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from './package-files.js';
import type { PublicSigningKey } from './signing.js';

/** Resource limits. `undefined` fields take the defaults. */
export interface PluginLimits {
  /** Wall-clock deadline per call in worker mode (default 5000 ms); the worker is terminated at it. */
  readonly callTimeoutMs?: number;
  /** Ceiling on the guest's linear memory, checked after every call (default 256 MiB). */
  readonly maxMemoryBytes?: number;
  /** V8 heap ceiling of the plugin's worker (`resourceLimits.maxOldGenerationSizeMb`, default 128). */
  readonly maxHeapMb?: number;
  /** Cap on every brokered HTTP request (default 30 000 ms). */
  readonly httpTimeoutMs?: number;
  /** Captured stdout/stderr kept per plugin (default 64 KiB each; older output is dropped). */
  readonly maxOutputBytes?: number;
  /** Cap on the serialised arguments of one worker-mode call (default 4 MiB). */
  readonly maxCallBytes?: number;
  /** Cap on one brokered HTTP response body, enforced while it streams (default 10 MiB). */
  readonly maxHttpResponseBytes?: number;
  /** Cap on one guest HTTP request body, enforced while it streams (default 16 MiB). */
  readonly maxHttpRequestBytes?: number;
  /**
   * Worker mode: how long the calling thread waits synchronously for a call's answer before it
   * goes back to its event loop (default 0: off). A short call then answers without an
   * event-loop turn, but the event loop is held for up to this long per call; on the loaded
   * machine the benchmarks ran on it gave no consistent gain. Plugins with network capabilities
   * never wait (their guest calls back into this thread).
   */
  readonly syncWaitMs?: number;
  /** Package reading caps. */
  readonly package?: PackageLimits;
}

/** Options of `createPluginHost`. */
export interface PluginHostOptions {
  /**
   * Host-wide egress policy (the second key of `http`/`tcp`/`udp`). `undefined`: no plugin gets
   * network unless `load` passes one.
   */
  readonly egress?: EgressPolicy;
  /** `@trust/egress` address-guard options; `mode` defaults to `'strict'`. */
  readonly guard?: GuardOptions;
  /** Keys whose signatures the host accepts. `undefined`/`[]`: none. */
  readonly trustedKeys?: readonly PublicSigningKey[];
  /** Refuse unsigned packages and bare components (default `true`). */
  readonly requireSignature?: boolean;
  /** Directory for the transpile cache (by component SHA-256). `undefined`: in-memory only. */
  readonly cacheDir?: string;
  readonly audit?: AuditSink;
  readonly limits?: PluginLimits;
  /**
   * `worker` (default): each plugin in its own worker thread. `in-thread`: on the calling thread,
   * no deadline; no network (`http` only with JSPI, Node 24+).
   */
  readonly isolation?: 'worker' | 'in-thread';
  /** Where `env:NAME` values come from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The longest delay a Node timer keeps (2^31 − 1 ms); a larger one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

const ms = (what: string) => z.number().positive().max(MAX_TIMER_MS).optional().describe(what);
const bytes = (what: string) => z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional().describe(what);

const packageLimitsSchema = z
  .object({
    maxEntries: bytes('maximum number of files in a package, e.g. 10000'),
    maxTotalBytes: bytes('maximum total size of a package in bytes, e.g. 268435456'),
    maxRatio: z
      .number()
      .positive()
      .finite()
      .optional()
      .describe('maximum unpacked/compressed size ratio of an archive, e.g. 50'),
  })
  .strict();

const limitsSchema = z
  .object({
    callTimeoutMs: ms('deadline per worker-mode call in ms, e.g. 5000'),
    maxMemoryBytes: bytes('ceiling on the guest linear memory in bytes, e.g. 268435456'),
    maxHeapMb: z.number().positive().finite().optional().describe('V8 heap ceiling of the worker in MB, e.g. 128'),
    httpTimeoutMs: ms('cap on every brokered HTTP request in ms, e.g. 30000'),
    maxOutputBytes: bytes('captured stdout/stderr kept per plugin in bytes, e.g. 65536'),
    maxCallBytes: bytes('cap on the serialised arguments of one call in bytes, e.g. 4194304'),
    maxHttpResponseBytes: bytes('cap on one brokered HTTP response body in bytes, e.g. 10485760'),
    maxHttpRequestBytes: bytes('cap on one guest HTTP request body in bytes, e.g. 16777216'),
    syncWaitMs: z
      .number()
      .min(0)
      .max(MAX_TIMER_MS)
      .optional()
      .describe('synchronous wait for a call answer in ms, 0 = off, e.g. 0.2'),
    package: packageLimitsSchema.optional().describe('package reading caps, e.g. { maxEntries: 1000 }'),
  })
  .strict();

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

const optionsSchema = z
  .object({
    egress: z
      .custom<EgressPolicy>(
        (v) => isObject(v) && typeof v.authorizeHttp === 'function',
        'expected an EgressPolicy (an object with authorizeHttp)',
      )
      .optional()
      .describe('host-wide egress policy, e.g. allowHosts(["api.example.com"])'),
    guard: z
      .custom<GuardOptions>((v) => isObject(v), 'expected @trust/egress guard options (an object)')
      .optional()
      .describe('address-guard options, checked by @trust/egress, e.g. { mode: "strict" }'),
    trustedKeys: z
      .array(
        z.custom<PublicSigningKey>(
          (v) =>
            isObject(v) &&
            v.kind === 'public' &&
            v.alg === 'ed25519' &&
            typeof v.keyId === 'string' &&
            v.publicKey instanceof Uint8Array &&
            v.publicKey.length === 32,
          'expected a public ed25519 signing key ({ kind: "public", alg: "ed25519", keyId, publicKey }); ' +
            'never pass the private key',
        ),
      )
      .optional()
      .describe('keys whose signatures the host accepts, e.g. [publicKey]'),
    requireSignature: z.boolean().optional().describe('refuse unsigned packages and bare components, e.g. true'),
    cacheDir: z.string().min(1).optional().describe('directory of the transpile cache, e.g. ".cache/wasm"'),
    audit: z
      .custom<AuditSink>(
        (v) => isObject(v) && typeof v.record === 'function',
        'expected an AuditSink (an object with record)',
      )
      .optional()
      .describe('audit sink, e.g. createMemoryAuditSink()'),
    limits: limitsSchema.optional().describe('resource limits, e.g. { callTimeoutMs: 5000 }'),
    isolation: z.enum(['worker', 'in-thread']).optional().describe('where plugins run, e.g. "worker"'),
    env: z.unknown().superRefine(checkEnv).optional().describe('source of env:NAME values, e.g. { API_TOKEN: "…" }'),
  })
  .strict();

/**
 * `env` is checked in place rather than parsed as a record: `process.env` is not a plain object to
 * zod, and the host keeps the caller's object (live), not a copy.
 */
function checkEnv(v: unknown, ctx: z.RefinementCtx): void {
  if (!isObject(v) || Array.isArray(v)) {
    ctx.addIssue({ code: 'custom', message: 'expected an object of strings' });
    return;
  }
  for (const [name, value] of Object.entries(v)) {
    if (value !== undefined && typeof value !== 'string')
      ctx.addIssue({ code: 'custom', path: [name], message: 'expected a string' });
  }
}

/** `createPluginHost`'s options with every default applied; immutable. */
export interface ResolvedPluginHostOptions {
  readonly egress: EgressPolicy | undefined;
  readonly guard: GuardOptions | undefined;
  readonly trustedKeys: readonly PublicSigningKey[];
  readonly requireSignature: boolean;
  readonly cacheDir: string | undefined;
  readonly audit: AuditSink | undefined;
  readonly isolation: 'worker' | 'in-thread';
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly limits: Readonly<Required<Omit<PluginLimits, 'package'>>> & {
    readonly package: Readonly<Required<PackageLimits>>;
  };
}

/**
 * Validates `createPluginHost`'s options once and applies the defaults. Throws
 * `WASM_OPTIONS_INVALID` listing every problem at once: an unknown key (`WASM_OPTIONS_UNKNOWN_KEY`,
 * with "did you mean"), a limit that is not a positive number (a zero `maxOutputBytes` would keep
 * all output, a timer past 2^31 − 1 ms would fire at once), a private key among `trustedKeys`.
 *
 * @example
 * resolvePluginHostOptions({ limits: { callTimeoutMs: 1000 } }).limits.callTimeoutMs; // 1000
 */
export function resolvePluginHostOptions(options: PluginHostOptions): ResolvedPluginHostOptions {
  const o = checkOptions(
    {
      where: 'createPluginHost',
      schema: optionsSchema,
      invalidCode: 'WASM_OPTIONS_INVALID',
      unknownKeyCode: 'WASM_OPTIONS_UNKNOWN_KEY',
    },
    options,
  );
  const l = o.limits ?? {};
  return Object.freeze({
    egress: o.egress,
    guard: o.guard,
    trustedKeys: Object.freeze([...(o.trustedKeys ?? [])]),
    requireSignature: o.requireSignature ?? true,
    cacheDir: o.cacheDir,
    audit: o.audit,
    isolation: o.isolation ?? 'worker',
    env: options.env ?? process.env,
    limits: Object.freeze({
      callTimeoutMs: l.callTimeoutMs ?? 5000,
      maxMemoryBytes: l.maxMemoryBytes ?? 256 * 1024 * 1024,
      maxHeapMb: l.maxHeapMb ?? 128,
      httpTimeoutMs: l.httpTimeoutMs ?? 30_000,
      maxOutputBytes: l.maxOutputBytes ?? 64 * 1024,
      maxCallBytes: l.maxCallBytes ?? 4 * 1024 * 1024,
      maxHttpResponseBytes: l.maxHttpResponseBytes ?? 10 * 1024 * 1024,
      maxHttpRequestBytes: l.maxHttpRequestBytes ?? 16 * 1024 * 1024,
      syncWaitMs: l.syncWaitMs ?? 0,
      package: Object.freeze({ ...DEFAULT_PACKAGE_LIMITS, ...stripUndefined(l.package ?? {}) }),
    }),
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
