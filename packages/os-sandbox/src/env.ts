import { TrustError, allow, deny, type Decision } from '@trust/core';
import type { SandboxPolicy } from './policy.js';

/** Names passed through from the source environment without a grant (none of them secret). */
export const BASE_ENV_NAMES: readonly string[] = Object.freeze(['PATH', 'LANG', 'TERM', 'TZ']);
/** PATH used when the source environment has none. */
export const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

const SECRET_PARTS = [
  'KEY',
  'SECRET',
  'TOKEN',
  'PASS',
  'CREDENTIAL',
  'PRIVATE',
  'COOKIE',
  'SESSION',
  'AUTH',
  'WEBHOOK',
  'BEARER',
  'JWT',
  'KUBECONFIG',
  'DSN',
];
/**
 * Short markers matched as whole words only (split at `_`, `-`, `.`), since as substrings they
 * would hit ordinary names: `MYSQL_PWD`, `GH_PAT`, `STRIPE_SK`, and connection strings that carry
 * credentials (`DATABASE_URL`, `REDIS_URL`, `MONGODB_URI`). The shell's own `PWD`/`OLDPWD` are not secrets.
 */
const SECRET_WORDS = new Set(['PWD', 'PAT', 'SK', 'URL', 'URI']);
const NOT_SECRET = new Set(['PWD', 'OLDPWD']);
/** Names the sandbox owns; a caller cannot set them. */
const RESERVED = new Set([
  'HOME',
  'TMPDIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
]);

/**
 * True when an environment variable name looks like it holds a secret, case-insensitive:
 * `*KEY*`, `*SECRET*`, `*TOKEN*`, `*PASS*` (PASSWORD, PASSWD, PASSPHRASE), `*CREDENTIAL*`,
 * `*PRIVATE*`, `*COOKIE*`, `*SESSION*`, `*AUTH*`, `*WEBHOOK*`, `*BEARER*`, `*JWT*`,
 * `*KUBECONFIG*`, `*DSN*`, or one of the words PWD, PAT, SK, URL, URI (`MYSQL_PWD`, `GH_PAT`,
 * `STRIPE_SK`, `DATABASE_URL`, `MONGODB_URI`); the shell's `PWD`/`OLDPWD` are not. False
 * positives (`MONKEY`, `API_URL`) are accepted: they only need a grant.
 *
 * @example
 * looksLikeSecretName('GITHUB_TOKEN'); // true
 * looksLikeSecretName('LOG_LEVEL');    // false
 */
export function looksLikeSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_SECRET.has(upper)) return false;
  return SECRET_PARTS.some((part) => upper.includes(part)) || upper.split(/[_.-]+/).some((w) => SECRET_WORDS.has(w));
}

/**
 * Decides whether one explicitly passed variable may enter the sandbox:
 * - a name granted by `env:NAME` is allowed;
 * - a secret-looking name without that exact grant is denied (`SANDBOX_ENV_SECRET`);
 * - a name the sandbox owns (HOME, TMPDIR, proxy variables) is denied (`SANDBOX_ENV_RESERVED`);
 * - any other name is allowed (the caller chose to pass it).
 *
 * @example
 * evaluateExplicitEnv(policy, 'GITHUB_TOKEN');
 * // { allow: false, code: 'SANDBOX_ENV_SECRET', ... } unless env:GITHUB_TOKEN is granted
 */
export function evaluateExplicitEnv(policy: SandboxPolicy, name: string): Decision {
  if (RESERVED.has(name)) {
    return deny('SANDBOX_ENV_RESERVED', `environment variable ${JSON.stringify(name)} is set by the sandbox itself`, {
      hint:
        'remove it from spawn({ env }); HOME and TMPDIR point at private ' +
        'sandbox directories and proxy variables are set for http/tcp',
    });
  }
  const granted = policy.capabilities.allowsEnv(name);
  if (granted.allow) return granted;
  if (looksLikeSecretName(name)) {
    return deny(
      'SANDBOX_ENV_SECRET',
      `environment variable ${JSON.stringify(name)} looks like a secret and is not granted by name`,
      {
        rule: 'env-secret-name',
        hint:
          `grant it explicitly with "env:${name}" if the sandboxed process must see ` +
          `it, or inject the credential through the egress policy instead`,
      },
    );
  }
  return allow('env-explicit');
}

/** What the sandbox environment is built from. */
export interface EnvInput {
  /** Where granted and base names are read from (the host environment by default). */
  readonly source: Readonly<Record<string, string | undefined>>;
  /** Variables the caller passes explicitly for this run; each is checked by `evaluateExplicitEnv`. */
  readonly explicit?: Readonly<Record<string, string>>;
  /** The sandbox's private HOME and TMPDIR. */
  readonly home: string;
  readonly tmpdir: string;
  /** Proxy variables for the http/tcp capabilities, set last. */
  readonly proxy?: Readonly<Record<string, string>>;
}

/**
 * Builds the complete sandbox environment: everything else is cleared. Throws
 * `SANDBOX_ENV_SECRET` / `SANDBOX_ENV_RESERVED` for a refused explicit variable.
 *
 * @example
 * buildSandboxEnv(policy, { source: process.env, home: '/home/sandbox', tmpdir: '/tmp' });
 */
export function buildSandboxEnv(policy: SandboxPolicy, input: EnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BASE_ENV_NAMES) {
    const v = input.source[name];
    if (typeof v === 'string') env[name] = v;
  }
  env.PATH ??= DEFAULT_PATH;
  for (const name of policy.capabilities.envNames) {
    const v = input.source[name];
    if (typeof v === 'string' && !RESERVED.has(name)) env[name] = v;
  }
  for (const [name, value] of Object.entries(input.explicit ?? {})) {
    const d = evaluateExplicitEnv(policy, name);
    if (!d.allow) throw new TrustError(d.code, d.reason, { hint: d.hint, decision: d });
    if (name.includes('=') || name === '' || value.includes('\0')) {
      throw new TrustError(
        'SANDBOX_ENV_INVALID',
        `environment variable ${JSON.stringify(name)} has an invalid name or value`,
        {
          hint: 'names may not be empty or contain "="; values may not contain NUL bytes',
        },
      );
    }
    env[name] = value;
  }
  env.HOME = input.home;
  env.TMPDIR = input.tmpdir;
  Object.assign(env, input.proxy ?? {});
  return env;
}
