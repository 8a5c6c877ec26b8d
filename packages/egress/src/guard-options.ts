import { TrustError, formatCidr, parseCidr, type Cidr, type Problem } from '@trust/core';
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

const MODES: readonly GuardMode[] = ['default', 'allow-local', 'strict'];

/** Validates guard options once, reporting every problem at once (code `EGRESS_OPTIONS_INVALID`). */
export function compileGuardOptions(options: GuardOptions = {}): CompiledGuardOptions {
  const problems: Problem[] = [];
  const mode = options.mode ?? 'default';
  if (!MODES.includes(mode)) {
    problems.push({
      code: 'EGRESS_OPTIONS_INVALID',
      path: 'mode',
      message: `unknown mode ${JSON.stringify(mode)}`,
      hint: `use one of ${MODES.join(', ')}`,
    });
  }
  const ports = options.protectedPorts ?? [];
  ports.forEach((p, i) => {
    if (!Number.isInteger(p) || p < 1 || p > 65535) {
      problems.push({
        code: 'EGRESS_OPTIONS_INVALID',
        path: `protectedPorts[${i}]`,
        message: `${String(p)} is not a port`,
        hint: 'use an integer 1-65535, e.g. 7385',
      });
    }
  });
  const cidrs = (key: 'allowCidrs' | 'denyCidrs') =>
    (options[key] ?? []).flatMap((item, i) => {
      const isCidr =
        typeof item === 'object' &&
        item !== null &&
        typeof item.prefix === 'number' &&
        item.address?.bytes instanceof Uint8Array;
      const cidr = typeof item === 'string' ? parseCidr(item) : isCidr ? parseCidr(formatCidr(item)) : undefined;
      if (cidr === undefined) {
        problems.push({
          code: 'EGRESS_OPTIONS_INVALID',
          path: `${key}[${i}]`,
          message: `${JSON.stringify(item)} is not a CIDR`,
          hint: 'write "10.0.0.0/8", "10.0.0.5" or "fd12::/16"',
        });
        return [];
      }
      return [{ text: typeof item === 'string' ? item : formatCidr(cidr), cidr }];
    });
  const allowCidrs = cidrs('allowCidrs');
  const denyCidrs = cidrs('denyCidrs');
  const timeout = options.resolveTimeoutMs ?? 5000;
  if (!(timeout > 0))
    problems.push({
      code: 'EGRESS_OPTIONS_INVALID',
      path: 'resolveTimeoutMs',
      message: 'must be > 0',
      hint: 'e.g. 5000',
    });
  const ttl = options.cacheTtlMs ?? 1000;
  if (!(ttl >= 0))
    problems.push({
      code: 'EGRESS_OPTIONS_INVALID',
      path: 'cacheTtlMs',
      message: 'must be >= 0',
      hint: 'e.g. 1000, or 0 to disable',
    });
  if (problems.length > 0) {
    throw new TrustError(
      'EGRESS_OPTIONS_INVALID',
      `invalid egress guard options: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      { problems },
    );
  }
  return Object.freeze({
    mode,
    protectedPorts: new Set(ports),
    resolve: options.resolve ?? systemResolve,
    schemes: Object.freeze([...(options.schemes ?? ['http:', 'https:'])]),
    allowCidrs: Object.freeze(allowCidrs),
    denyCidrs: Object.freeze(denyCidrs),
    resolveTimeoutMs: timeout,
    cacheTtlMs: ttl,
  });
}
