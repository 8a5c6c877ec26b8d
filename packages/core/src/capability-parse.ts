import type { CapabilityErrorCode } from './error-codes.js';
import type { CapabilityName } from './capability-name.js';
import { formatCapability, type Capability, type CapabilitySet } from './capability.js';
import { createCapabilitySet } from './capability-set.js';
import { TrustError, type Problem } from './error.js';
import { fsGrantConflicts } from './capability-fs-grants.js';
import { normalizeAbsolutePath } from './path.js';
import { suggest } from './suggest.js';

const PLAIN: readonly CapabilityName[] = [
  'args',
  'stdin',
  'stdout',
  'stderr',
  'http',
  'tcp',
  'udp',
  'network',
  'sockets',
  'clocks',
  'random',
];
const PLAIN_SET: ReadonlySet<string> = new Set(PLAIN);
/** The bare capabilities whose destinations the egress policy names. */
const NETWORK_HEADS: ReadonlySet<string> = new Set(['http', 'tcp', 'udp']);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Linux PATH_MAX, in bytes: a longer grant could never be opened. */
const FS_PATH_MAX = 4096;
const FORMS =
  'args, stdin, stdout, stderr, http, tcp, udp, network, sockets, clocks, random, env:NAME, fs:ro:<dir>, ' +
  'fs:rw:<dir>, fs:none:<path>';

type Result = { ok: true; cap: Capability } | { ok: false; problem: Omit<Problem, 'path'> };

const fail = (code: CapabilityErrorCode, message: string, hint: string): Result => ({
  ok: false,
  problem: { code, message, hint },
});

function unknown(entry: string): Result {
  const trimmed = entry.trim();
  const colon = trimmed.indexOf(':');
  let guess: string | undefined;
  if (colon > 0) {
    const head = trimmed.slice(0, colon);
    const prefix = head.toLowerCase() === 'filesystem' ? 'fs' : suggest(head, ['env', 'fs']);
    if (prefix) guess = `${prefix}${trimmed.slice(colon)}`;
    else if (PLAIN_SET.has(head)) {
      return fail(
        'CAPABILITY_UNKNOWN',
        `unknown capability ${JSON.stringify(entry)}: "${head}" takes no argument`,
        `write "${head}"${NETWORK_HEADS.has(head) ? ' and allow destinations in the egress policy' : ''}`,
      );
    }
  } else {
    guess = suggest(trimmed, PLAIN);
  }
  const hint = guess ? `did you mean "${guess}"? valid forms: ${FORMS}` : `valid forms: ${FORMS}`;
  return fail('CAPABILITY_UNKNOWN', `unknown capability ${JSON.stringify(entry)}`, hint);
}

function parseFs(entry: string): Result {
  const rest = entry.slice(3);
  const colon = rest.indexOf(':');
  const mode = colon < 0 ? '' : rest.slice(0, colon);
  if (mode !== 'ro' && mode !== 'rw' && mode !== 'none') {
    const lower = mode.toLowerCase();
    const example =
      lower === 'ro' || lower === 'rw' || lower === 'none'
        ? `fs:${lower}:${rest.slice(colon + 1)}`
        : rest.startsWith('/')
          ? `fs:ro:${rest}`
          : 'fs:ro:/etc/myapp';
    return fail(
      'CAPABILITY_FS_MODE',
      `capability ${JSON.stringify(entry)} has no valid mode: use ro, rw or none`,
      `write "${example}" (read-only), "fs:rw:..." (read-write) or "fs:none:..." (hide a path inside a grant)`,
    );
  }
  const raw = rest.slice(colon + 1);
  if (raw === '')
    return fail(
      'CAPABILITY_EMPTY',
      `capability ${JSON.stringify(entry)} requires a path`,
      `name one directory, e.g. "fs:${mode}:/var/lib/myapp"`,
    );
  if (/[\u0000-\u001f\u007f]/.test(raw)) {
    return fail(
      'CAPABILITY_FS_PATH',
      `capability ${JSON.stringify(entry)} has a control character in its path`,
      'remove the control character (newline, tab, escape) from the path',
    );
  }
  if (raw.split('/').includes('..')) {
    return fail(
      'CAPABILITY_FS_PATH',
      `capability ${JSON.stringify(entry)} has a ".." segment`,
      `write the directory it means directly, e.g. ` +
        `"fs:${mode}:${normalizeAbsolutePath(raw) ?? '/var/lib/myapp'}", so a reviewer sees what is granted`,
    );
  }
  const path = normalizeAbsolutePath(raw);
  if (path === undefined) {
    return fail(
      'CAPABILITY_FS_RELATIVE',
      `capability ${JSON.stringify(entry)} has a relative path`,
      `write an absolute path, e.g. "fs:${mode}:/${raw.replace(/^\.?\/*/, '')}"; relative paths would depend ` +
        `on the host's working directory`,
    );
  }
  if (path === '/') {
    return fail(
      'CAPABILITY_BARE_FS',
      `capability ${JSON.stringify(entry)} grants the whole filesystem`,
      `grant one directory instead, e.g. "fs:${mode}:/var/lib/myapp"`,
    );
  }
  // Canonical or refused, never rewritten: what a reviewer reads is exactly what the guest gets.
  if (raw !== path) {
    return fail(
      'CAPABILITY_FS_PATH',
      `capability ${JSON.stringify(entry)} is not in canonical form (empty or "." segment, or a trailing slash)`,
      `write "fs:${mode}:${path}"`,
    );
  }
  if (new TextEncoder().encode(path).length > FS_PATH_MAX) {
    return fail(
      'CAPABILITY_FS_PATH',
      `capability ${JSON.stringify(entry)} has a path longer than ${FS_PATH_MAX} bytes`,
      'grant a shorter directory path (PATH_MAX is 4096 bytes)',
    );
  }
  return { ok: true, cap: { kind: 'fs', mode, path } };
}

function parseEntry(entry: unknown): Result {
  if (typeof entry !== 'string')
    return fail(
      'CAPABILITY_UNKNOWN',
      `capability ${String(entry)} is not a string`,
      `write a string such as "http" or "env:LOG_LEVEL"`,
    );
  if (entry.includes('\0'))
    return fail('CAPABILITY_NUL', `capability ${JSON.stringify(entry)} contains a NUL byte`, 'remove the NUL byte');
  if (entry === '')
    return fail('CAPABILITY_EMPTY', 'empty capability name', `remove the entry or write one of: ${FORMS}`);
  if (entry === 'env') {
    return fail(
      'CAPABILITY_BARE_ENV',
      'bare "env" would grant every host environment variable (every secret) and is not allowed',
      'grant specific variables by name, e.g. "env:LOG_LEVEL"',
    );
  }
  if (entry === 'fs' || entry === 'filesystem') {
    return fail(
      'CAPABILITY_BARE_FS',
      `bare "${entry}" would grant the whole filesystem and is not allowed`,
      'grant one directory: "fs:ro:/etc/myapp" (read-only) or "fs:rw:/var/lib/myapp" (read-write)',
    );
  }
  if (entry.startsWith('env:')) {
    const name = entry.slice(4);
    if (name === '')
      return fail('CAPABILITY_EMPTY', 'capability "env:" requires a variable name', 'write e.g. "env:LOG_LEVEL"');
    if (!ENV_NAME.test(name)) {
      return fail(
        'CAPABILITY_ENV_NAME',
        `capability ${JSON.stringify(entry)} does not name a valid environment variable`,
        'use letters, digits and underscores, not starting with a digit, e.g. "env:LOG_LEVEL"',
      );
    }
    return { ok: true, cap: { kind: 'env', name } };
  }
  if (entry.startsWith('fs:')) return parseFs(entry);
  if (PLAIN_SET.has(entry)) return { ok: true, cap: { kind: entry as Exclude<CapabilityName, 'env' | 'fs'> } };
  return unknown(entry);
}

/**
 * Parses a capability list into a frozen `CapabilitySet`. `undefined` and `[]` both mean
 * deny-all: an empty set; `null` or any other non-array is an error. Matching is exact and
 * case-sensitive.
 *
 * Throws a `TrustError` with code `CAPABILITY_INVALID` whose `problems` list every problem at
 * once, each with its own code and a hint: `CAPABILITY_UNKNOWN` (with "did you mean"),
 * `CAPABILITY_BARE_ENV`, `CAPABILITY_BARE_FS` (also `fs:ro:/`), `CAPABILITY_EMPTY`,
 * `CAPABILITY_NUL`, `CAPABILITY_FS_MODE`, `CAPABILITY_FS_RELATIVE` (fs paths must be absolute:
 * a relative path would silently depend on the host's working directory), `CAPABILITY_FS_PATH`
 * (a `..`, empty or `.` segment, a trailing slash, a control byte, or longer than PATH_MAX 4096:
 * fs grants must be canonical and are refused, never rewritten), `CAPABILITY_FS_MODE_CONFLICT` (one
 * path named in two modes), `CAPABILITY_FS_DENY_UNCOVERED` (a deny entry `fs:none:<path>` inside
 * no grant),
 * `CAPABILITY_ENV_NAME` (`[A-Za-z_][A-Za-z0-9_]*`) and `CAPABILITY_TIER_CONFLICT`
 * (`tcp`/`udp` with `network`/`sockets`). Exact duplicates are kept once and reported in
 * `set.warnings` (`CAPABILITY_DUPLICATE`).
 *
 * fs entries nest: `fs:ro:/a` with `fs:rw:/a/b` (a writable directory inside a readable one), the
 * reverse, and `fs:none:<path>` (a deny entry hiding a directory or file inside a grant). The most
 * specific entry covering a path wins (`set.fsGrant`).
 *
 * @example
 * const set = parseCapabilities(['env:LOG_LEVEL', 'fs:ro:/etc/certs', 'http']);
 * set.fsGrant('/etc/certs/ca.pem'); // { access: 'ro', root: '/etc/certs' }
 * set.egressTier();                 // 'brokered'
 * const repo = parseCapabilities(['fs:ro:/repo', 'fs:rw:/repo/dist', 'fs:none:/repo/.env']);
 * repo.fsGrant('/repo/dist/a.js').access; // 'rw'
 * repo.fsGrant('/repo/.env').access;      // 'none'
 */
export function parseCapabilities(list: readonly string[] | undefined): CapabilitySet {
  const result = tryParseCapabilities(list);
  if (!result.ok) throw result.error;
  return result.set;
}

/**
 * Like `parseCapabilities`, but returns the error instead of throwing.
 *
 * @example
 * const r = tryParseCapabilities(['env']);
 * if (!r.ok) console.log(r.error.problems[0]?.code); // 'CAPABILITY_BARE_ENV'
 */
export function tryParseCapabilities(
  list: readonly string[] | undefined,
): { ok: true; set: CapabilitySet } | { ok: false; error: TrustError } {
  if (list !== undefined && !Array.isArray(list)) {
    const problem: Problem = {
      code: 'CAPABILITY_UNKNOWN',
      message: 'the capability list is not an array',
      hint: 'write a list, e.g. ["http", "env:LOG_LEVEL"]',
      path: '',
      severity: 'error',
    };
    return {
      ok: false,
      error: new TrustError('CAPABILITY_INVALID', `invalid capabilities: ${problem.message}`, {
        problems: [problem],
        hint: problem.hint,
      }),
    };
  }
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const entries: Capability[] = [];
  const seen = new Map<string, number>();
  (list ?? []).forEach((entry, index) => {
    const r = parseEntry(entry);
    if (!r.ok) {
      problems.push({ ...r.problem, path: `[${index}]`, severity: 'error' });
      return;
    }
    const canonical = formatCapability(r.cap);
    const first = seen.get(canonical);
    if (first !== undefined) {
      warnings.push({
        code: 'CAPABILITY_DUPLICATE',
        message: `capability "${canonical}" is listed more than once (first at [${first}])`,
        hint: 'remove the duplicate',
        path: `[${index}]`,
        severity: 'warning',
      });
      return;
    }
    seen.set(canonical, index);
    entries.push(r.cap);
  });
  problems.push(...fsGrantConflicts(entries, seen));
  const fine = entries.filter((e) => e.kind === 'tcp' || e.kind === 'udp').map((e) => e.kind);
  const coarse = entries.filter((e) => e.kind === 'network' || e.kind === 'sockets').map((e) => e.kind);
  if (fine.length > 0 && coarse.length > 0) {
    problems.push({
      code: 'CAPABILITY_TIER_CONFLICT',
      severity: 'error',
      path: `[${seen.get(coarse[0] as string)}]`,
      message: `${fine.join('/')} and ${coarse.join('/')} are mutually exclusive network tiers`,
      hint:
        `pick one tier: keep "${fine.join('", "')}" for policy-gated peers (recommended), or "${coarse[0]}" ` +
        `for any public host (address floor only)`,
    });
  }
  if (problems.length > 0) {
    const lines = problems.map((p) => `${p.path} ${p.message}${p.hint ? ` (${p.hint})` : ''}`);
    const error = new TrustError(
      'CAPABILITY_INVALID',
      `invalid capabilities (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${lines.join('; ')}`,
      { problems, hint: problems[0]?.hint },
    );
    return { ok: false, error };
  }
  return { ok: true, set: createCapabilitySet(entries, warnings) };
}
