import { formatCidr, parseCidr, type Cidr } from '@trust/core';
import { z } from 'zod';
import { checkEgressOptions, duration, fn, port } from './egress-options.js';
import { systemResolve, type Resolve } from './resolver.js';

/** How much of the local network the guard lets through. */
export type GuardMode = 'default' | 'allow-local' | 'strict';

/**
 * Options of the address guard. Every list option: `undefined` and `[]` both mean "none".
 */
export interface GuardOptions {
  /**
   * `'default'` (loopback allowed except `protectedPorts`; RFC 1918 and CGNAT blocked),
   * `'allow-local'` (also RFC 1918 and CGNAT), `'strict'` (no loopback, private or CGNAT).
   */
  readonly mode?: GuardMode;
  /** Ports never reachable on any non-public address (loopback in every spelling, private, CGNAT). */
  readonly protectedPorts?: readonly number[];
  /** Resolver for names. Default: `dns.lookup` with `all` and `verbatim`. */
  readonly resolve?: (host: string) => Promise<string[]>;
  /** URL schemes with the colon. Default `['http:', 'https:']` (`ws:`/`wss:` for WebSocket). */
  readonly schemes?: readonly string[];
  /**
   * Operator allows: CIDRs (text such as `"10.0.0.0/8"`, or `Cidr` values from `parseCidr` /
   * `compilePolicy`) that open loopback, private, CGNAT, ULA or reserved blocks. Never
   * link-local, metadata, unspecified, multicast or broadcast.
   */
  readonly allowCidrs?: readonly (string | Cidr)[];
  /** Operator denies: CIDRs blocked in every mode (wins over `allowCidrs`). */
  readonly denyCidrs?: readonly (string | Cidr)[];
  /** Deadline for one resolution (default 5000 ms). A timeout blocks. */
  readonly resolveTimeoutMs?: number;
  /** How long a resolver answer is reused (default 1000 ms; 0 disables). Answers are re-judged on every use. */
  readonly cacheTtlMs?: number;
}

/** Options after validation: immutable, with defaults filled in and CIDRs parsed. */
export interface CompiledGuardOptions {
  readonly mode: GuardMode;
  readonly protectedPorts: ReadonlySet<number>;
  readonly resolve: Resolve;
  readonly schemes: readonly string[];
  readonly allowCidrs: readonly { readonly text: string; readonly cidr: Cidr }[];
  readonly denyCidrs: readonly { readonly text: string; readonly cidr: Cidr }[];
  readonly resolveTimeoutMs: number;
  readonly cacheTtlMs: number;
}

const MODES = ['default', 'allow-local', 'strict'] as const satisfies readonly GuardMode[];

/** A CIDR as text, or a `Cidr` value; `undefined` when it is neither. */
function toCidr(item: unknown): Cidr | undefined {
  if (typeof item === 'string') return parseCidr(item);
  const isCidr =
    typeof item === 'object' &&
    item !== null &&
    typeof (item as Cidr).prefix === 'number' &&
    (item as Cidr).address?.bytes instanceof Uint8Array;
  return isCidr ? parseCidr(formatCidr(item as Cidr)) : undefined;
}

const cidrList = (what: string) =>
  z
    .array(z.custom<string | Cidr>((v) => toCidr(v) !== undefined, 'expected a CIDR such as "10.0.0.0/8"'))
    .optional()
    .describe(what);

/** The strict schema of `GuardOptions`; every field described with a valid example. */
export const guardOptionsSchema = z
  .object({
    mode: z
      .enum(MODES)
      .optional()
      .describe('how much of the local network is let through: "default", "allow-local" or "strict", e.g. "strict"'),
    protectedPorts: z
      .array(port('a port 1-65535, e.g. 7385'))
      .optional()
      .describe('ports never reachable on a non-public address, e.g. [7385]'),
    resolve: fn('resolver for names, e.g. async (host) => ["93.184.216.34"]').optional(),
    schemes: z
      .array(z.string().regex(/^[a-z][a-z0-9+.-]*:$/, 'expected a lowercase URL scheme with its colon'))
      .optional()
      .describe('URL schemes with the colon, e.g. ["http:", "https:"]'),
    allowCidrs: cidrList('blocks opened although local, e.g. ["10.0.0.0/8", "10.0.0.5", "fd12::/16"]'),
    denyCidrs: cidrList('blocks refused in every mode, e.g. ["203.0.113.0/24"]'),
    resolveTimeoutMs: duration('deadline for one resolution in ms, e.g. 5000').optional(),
    cacheTtlMs: duration('how long a resolver answer is reused in ms, e.g. 1000 (0 disables)', 0).optional(),
  })
  .strict()
  .describe('address-guard options, e.g. { mode: "strict", protectedPorts: [7385] }');

/**
 * Validates guard options once (strict: an unknown key is `EGRESS_OPTIONS_UNKNOWN_KEY` with "did
 * you mean"), reporting every problem at once (code `EGRESS_OPTIONS_INVALID`), and compiles them.
 *
 * @example
 * compileGuardOptions({ mode: 'strict' }).mode; // 'strict'
 */
export function compileGuardOptions(options: GuardOptions = {}): CompiledGuardOptions {
  checkEgressOptions('createEgressGuard', guardOptionsSchema, options);
  const cidrs = (list: readonly (string | Cidr)[] | undefined) =>
    Object.freeze(
      (list ?? []).map((item) => {
        const cidr = toCidr(item) as Cidr;
        return { text: typeof item === 'string' ? item : formatCidr(cidr), cidr };
      }),
    );
  return Object.freeze({
    mode: options.mode ?? 'default',
    protectedPorts: new Set(options.protectedPorts ?? []),
    resolve: options.resolve ?? systemResolve,
    schemes: Object.freeze([...(options.schemes ?? ['http:', 'https:'])]),
    allowCidrs: cidrs(options.allowCidrs),
    denyCidrs: cidrs(options.denyCidrs),
    resolveTimeoutMs: options.resolveTimeoutMs ?? 5000,
    cacheTtlMs: options.cacheTtlMs ?? 1000,
  });
}
