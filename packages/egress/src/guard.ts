import {
  allow,
  deny,
  formatIp,
  parseIp,
  type Allow,
  type Deny,
  type EgressErrorCode,
  type IpAddress,
} from '@trust/core';
import { judgeAddress, type AddressVerdict } from './address-rules.js';
import type { AddressClass } from './address-class.js';
import { redactUrl } from './redact.js';
import { compileGuardOptions, type CompiledGuardOptions, type GuardMode, type GuardOptions } from './guard-options.js';
import { createAnswerCache, resolveWithin } from './resolver.js';
import { hostPort, isDenyResult, parseTarget, type Target } from './target.js';

/** The guard's verdict on a host and port: every address it resolved to, each judged. */
export type HostVerdict = (Allow | Deny) & {
  /** Every address the host stands for (canonical text), in resolver order. Empty when none. */
  readonly addresses: readonly string[];
  /** The verdict on each address, in the same order. */
  readonly checks: readonly AddressVerdict[];
};

/** The verdict on a URL: the decision, the vetted addresses and the parsed URL when it parsed. */
export type UrlVerdict = HostVerdict & { readonly url?: URL; readonly host?: string; readonly port?: number };

/** One step of {@link explainUrl}. */
export interface ExplainStep {
  readonly step: 'parse' | 'scheme' | 'userinfo' | 'host' | 'resolve' | 'classify' | 'rule' | 'verdict';
  readonly ok: boolean;
  readonly detail: string;
}

export interface UrlExplanation {
  readonly steps: readonly ExplainStep[];
  readonly verdict: UrlVerdict;
}

/** A compiled address guard. Create once, share freely; instances never interfere. */
export interface EgressGuard {
  readonly mode: GuardMode;
  readonly options: CompiledGuardOptions;
  /** Judges one address on one port (no I/O). */
  judgeAddress(address: string | IpAddress, port: number): AddressVerdict;
  /** Resolves a canonical host (name or IP literal) and judges every address. Fails closed. */
  resolveHost(host: string, port: number): Promise<HostVerdict>;
  /** Parses, checks scheme and userinfo, resolves and judges. `schemes` overrides the guard's. */
  evaluateUrl(url: string | URL, schemes?: readonly string[]): Promise<UrlVerdict>;
  /** Like `evaluateUrl`, with every step spelled out (for `trust egress check`). */
  explainUrl(url: string | URL, schemes?: readonly string[]): Promise<UrlExplanation>;
}

const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
]);

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

type Steps = ExplainStep[] | undefined;

/**
 * Compiles guard options once and returns the guard. Throws `EGRESS_OPTIONS_INVALID` (with every
 * problem listed) when an option is wrong.
 *
 * @example
 * const guard = createEgressGuard({ mode: 'default', protectedPorts: [7385] });
 * (await guard.evaluateUrl('http://127.1:7385/')).allow; // false (EGRESS_PROTECTED_PORT)
 */
export function createEgressGuard(options: GuardOptions = {}): EgressGuard {
  const compiled = compileGuardOptions(options);
  const cache = createAnswerCache(compiled.cacheTtlMs);

  const judge = (a: string | IpAddress, port: number) => judgeAddress(compiled, a, port);

  const verdictOf = (addresses: string[], checks: AddressVerdict[], steps: Steps): HostVerdict => {
    for (const c of checks)
      steps?.push({
        step: 'classify',
        ok: c.allow,
        detail:
          `${c.address.ip}: ${c.address.label}` +
          (c.address.via ? ` via ${c.address.via} of ${c.address.embedded}` : ''),
      });
    const denied = checks.find((c) => !c.allow);
    if (denied !== undefined) {
      const { address: _a, ...decision } = denied;
      steps?.push({ step: 'rule', ok: false, detail: `${decision.rule}: ${(decision as Deny).reason}` });
      return { ...(decision as Deny), addresses, checks };
    }
    const rule = checks[0]?.rule ?? 'public';
    steps?.push({ step: 'rule', ok: true, detail: checks.map((c) => `${c.address.ip} → ${c.rule}`).join(', ') });
    return { ...allow(rule), addresses, checks };
  };

  const fail = (code: EgressErrorCode, reason: string, hint: string, steps: Steps): HostVerdict => {
    steps?.push({ step: 'resolve', ok: false, detail: reason });
    return { ...deny(code, reason, { rule: 'dns', hint }), addresses: [], checks: [] };
  };

  // Verdicts are pure functions of (address, port, compiled options), so they are memoised per
  // guard: for IP literals by host text, and for a cached answer set by its identity.
  const literalVerdicts = new Map<string, HostVerdict>();
  const answerVerdicts = new WeakMap<readonly string[], Map<number, HostVerdict>>();

  const resolveHost = async (host: string, port: number, steps?: Steps): Promise<HostVerdict> => {
    if (steps === undefined) {
      const hit = literalVerdicts.get(`${port} ${host}`);
      if (hit !== undefined) return hit;
    }
    const literal = parseIp(host);
    if (literal !== undefined) {
      const text = formatIp(literal);
      steps?.push({ step: 'resolve', ok: true, detail: `${text} is an IP literal; no DNS` });
      const v = Object.freeze(verdictOf([text], [judge(literal, port)], steps));
      if (steps === undefined) {
        if (literalVerdicts.size >= 4096) literalVerdicts.clear();
        literalVerdicts.set(`${port} ${host}`, v);
      }
      return v;
    }
    const name = host.toLowerCase().replace(/\.$/, '');
    if (isLocalhostName(name)) {
      steps?.push({ step: 'resolve', ok: true, detail: `${name} is loopback by name (RFC 6761); no DNS` });
      return verdictOf(['127.0.0.1', '::1'], [judge('127.0.0.1', port), judge('::1', port)], steps);
    }
    if (METADATA_NAMES.has(name)) {
      steps?.push({ step: 'resolve', ok: false, detail: `${name} is a cloud metadata name` });
      return {
        ...deny(
          'EGRESS_METADATA',
          `egress denied: ${hostPort(name, port)} is a cloud metadata name (rule block-metadata)`,
          { rule: 'block-metadata', hint: 'this class is blocked in every mode and cannot be allowed' },
        ),
        addresses: [],
        checks: [],
      };
    }
    let answers = cache.get(name, Date.now());
    if (answers !== undefined && steps === undefined) {
      const hit = answerVerdicts.get(answers)?.get(port);
      if (hit !== undefined) return hit;
    }
    if (answers === undefined) {
      const out = await resolveWithin(compiled.resolve, name, compiled.resolveTimeoutMs);
      if (out.kind === 'timeout') {
        return fail(
          'EGRESS_DNS_TIMEOUT',
          `egress denied: resolving ${name} took longer than ${compiled.resolveTimeoutMs} ms`,
          'retry later, or raise resolveTimeoutMs',
          steps,
        );
      }
      if (out.kind === 'error') {
        const code = (out.error as { code?: unknown } | null)?.code;
        return fail(
          'EGRESS_DNS_FAILED',
          `egress denied: resolving ${name} failed${typeof code === 'string' ? ` (${code})` : ''}`,
          'check the name; a resolver failure always blocks',
          steps,
        );
      }
      answers = out.addresses;
      if (answers.length > 0) cache.set(name, answers, Date.now());
    }
    if (answers.length === 0)
      return fail(
        'EGRESS_DNS_EMPTY',
        `egress denied: ${name} resolved to no addresses`,
        'check the name; an empty answer always blocks',
        steps,
      );
    const parsed = answers.map((a) => (typeof a === 'string' ? parseIp(a) : undefined));
    const addresses = parsed.map((p, i) => (p === undefined ? String(answers[i]) : formatIp(p)));
    steps?.push({ step: 'resolve', ok: true, detail: `${name} → ${addresses.join(', ')}` });
    const v = Object.freeze(
      verdictOf(
        addresses,
        parsed.map((p, i) => judge(p ?? String(answers[i]), port)),
        steps,
      ),
    );
    if (steps === undefined) {
      let byPort = answerVerdicts.get(answers);
      if (byPort === undefined) {
        byPort = new Map();
        answerVerdicts.set(answers, byPort);
      }
      byPort.set(port, v);
    }
    return v;
  };

  const evaluate = async (
    url: string | URL,
    schemes: readonly string[] | undefined,
    steps: Steps,
  ): Promise<UrlVerdict> => {
    const target: Target | Deny = parseTarget(url, schemes ?? compiled.schemes);
    if (isDenyResult(target)) {
      const step =
        target.code === 'EGRESS_SCHEME' ? 'scheme' : target.code === 'EGRESS_USERINFO' ? 'userinfo' : 'parse';
      if (step !== 'parse') steps?.push({ step: 'parse', ok: true, detail: 'the URL parses' });
      steps?.push({ step, ok: false, detail: target.reason });
      steps?.push({ step: 'verdict', ok: false, detail: target.code });
      return { ...target, addresses: [], checks: [] };
    }
    // The explanation shows the URL as audit events do: no fragment, no query values, no tokens.
    steps?.push({ step: 'parse', ok: true, detail: redactUrl(target.url) });
    steps?.push({ step: 'scheme', ok: true, detail: target.scheme });
    steps?.push({ step: 'userinfo', ok: true, detail: 'none' });
    steps?.push({
      step: 'host',
      ok: true,
      detail: `${target.host} (${target.ip ? `IPv${target.ip.family} literal` : 'name'}), port ${target.port}`,
    });
    const v = await resolveHost(target.host, target.port, steps);
    steps?.push({ step: 'verdict', ok: v.allow, detail: v.allow ? `allow (${v.rule})` : (v as Deny).code });
    return { ...v, url: target.url, host: target.host, port: target.port };
  };

  return Object.freeze({
    mode: compiled.mode,
    options: compiled,
    judgeAddress: judge,
    resolveHost: (host: string, port: number) => resolveHost(host, port),
    evaluateUrl: (url: string | URL, schemes?: readonly string[]) => evaluate(url, schemes, undefined),
    explainUrl: async (url: string | URL, schemes?: readonly string[]) => {
      const steps: ExplainStep[] = [];
      const verdict = await evaluate(url, schemes, steps);
      return { steps, verdict };
    },
  });
}

/**
 * Judges a URL: WHATWG parse, scheme allow-list, no userinfo, resolve (injectable, time-boxed,
 * fail closed) and every address judged with the port. Compiles the options on every call:
 * keep a {@link createEgressGuard} when judging many URLs.
 *
 * @example
 * const v = await evaluateUrl('http://[::ffff:7f00:1]:7385/', { protectedPorts: [7385] });
 * v.allow; // false; v.code === 'EGRESS_PROTECTED_PORT'
 */
export function evaluateUrl(url: string | URL, options: GuardOptions = {}): Promise<UrlVerdict> {
  return createEgressGuard(options).evaluateUrl(url);
}

/**
 * Explains how a URL is judged, step by step: parse, scheme, userinfo, canonical host, resolved
 * addresses, the class of each, the rule and the verdict.
 *
 * @example
 * const { steps, verdict } = await explainUrl('http://0x7f000001/', { mode: 'strict' });
 * steps.map((s) => `${s.step}: ${s.detail}`);
 */
export function explainUrl(url: string | URL, options: GuardOptions = {}): Promise<UrlExplanation> {
  return createEgressGuard(options).explainUrl(url);
}

export type { AddressClass };
