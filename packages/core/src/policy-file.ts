import type { z } from 'zod';
import { TrustError, type Problem } from './error.js';
import { policyFileSchema, type IssueParams, type PolicyFile } from './policy-file-schema.js';
import { suggest } from './suggest.js';

/** Known keys of each object in the file, by the path's field names (indices removed). */
const KEYS: Readonly<Record<string, readonly string[]>> = {
  '': ['v', 'name', 'description', 'http', 'tcp', 'udp', 'guard'],
  http: ['allow', 'deny', 'methods', 'inject'],
  tcp: ['allow', 'deny'],
  udp: ['allow', 'deny'],
  'http.inject': ['hosts', 'headers'],
  guard: ['mode', 'protectedPorts', 'allowCidrs', 'denyCidrs'],
};

/** A valid example per field, for hints. */
const EXAMPLES: Readonly<Record<string, string>> = {
  '': '{ "v": 1, "http": { "allow": ["api.example.com"] } }',
  v: '"v": 1',
  name: '"name": "github-readonly"',
  description: '"description": "read-only access to the GitHub API"',
  http: '"http": { "allow": ["api.example.com", "*.example.com"] }',
  'http.allow': '"allow": ["api.example.com", "*.example.com"]',
  'http.deny': '"deny": ["admin.example.com"]',
  'http.methods': '"methods": ["GET", "POST"]',
  'http.inject': '"inject": [{ "hosts": ["api.example.com"], "headers": { "authorization": { "env": "API_TOKEN" } } }]',
  'http.inject.hosts': '"hosts": ["api.example.com"]',
  'http.inject.headers': '"headers": { "authorization": { "env": "API_TOKEN" } }',
  tcp: '"tcp": { "allow": ["db.example.com:5432"] }',
  'tcp.allow': '"allow": ["db.example.com:5432"]',
  'tcp.deny': '"deny": ["10.0.0.0/8"]',
  udp: '"udp": { "allow": ["dns.example.com:53"] }',
  'udp.allow': '"allow": ["dns.example.com:53"]',
  'udp.deny': '"deny": ["10.0.0.0/8"]',
  guard: '"guard": { "mode": "default" }',
  'guard.mode': '"mode": "default" (or "allow-local", "strict")',
  'guard.protectedPorts': '"protectedPorts": [22, 25]',
  'guard.allowCidrs': '"allowCidrs": ["10.1.0.0/16"]',
  'guard.denyCidrs': '"denyCidrs": ["100.64.0.0/10"]',
};

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

/** The example for the closest field at or above `path`. */
function exampleFor(path: readonly PropertyKey[]): string {
  const names = path.filter((s): s is string => typeof s === 'string');
  for (let n = names.length; n >= 0; n--) {
    const example = EXAMPLES[names.slice(0, n).join('.')];
    if (example) return `for example ${example}`;
  }
  return '';
}

function toProblems(issue: z.core.$ZodIssue): Problem[] {
  const path = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const known = KEYS[issue.path.filter((s): s is string => typeof s === 'string').join('.')] ?? [];
    return issue.keys.map((key) => {
      const guess = suggest(key, known);
      const where = path === '' ? key : `${path}.${key}`;
      return {
        code: 'POLICY_UNKNOWN_KEY',
        path: where,
        message: `unknown key ${JSON.stringify(key)}${path === '' ? '' : ` in ${path}`}`,
        hint: guess
          ? `did you mean "${guess}"? known keys: ${known.join(', ')}`
          : `remove it; known keys: ${known.join(', ')}`,
        severity: 'error' as const,
      };
    });
  }
  if (issue.code === 'custom') {
    const params = issue.params as IssueParams | undefined;
    return [
      {
        code: params?.trustCode ?? 'POLICY_INVALID_VALUE',
        path,
        message: issue.message,
        hint: params?.hint,
        severity: 'error',
      },
    ];
  }
  const code = path === 'v' ? 'POLICY_VERSION' : issue.code === 'invalid_type' ? 'POLICY_TYPE' : 'POLICY_INVALID_VALUE';
  const message = path === 'v' ? 'the policy file must declare "v": 1 (the only format version)' : issue.message;
  return [{ code, path, message, hint: exampleFor(issue.path), severity: 'error' }];
}

/**
 * Validates a parsed policy document (format `v: 1`). Throws `POLICY_INVALID` whose `problems`
 * list every problem at once, each with a path (`http.allow[1]`), a code (`POLICY_UNKNOWN_KEY`
 * with "did you mean", `POLICY_VERSION`, `POLICY_TYPE`, `POLICY_HOST_RULE_INVALID`,
 * `POLICY_CIDR_INVALID`, `POLICY_INVALID_VALUE`) and a hint with a valid example.
 *
 * @example
 * const file = parsePolicyFile({ v: 1, http: { allow: ['api.github.com'], methods: ['GET'] } });
 */
export function parsePolicyFile(doc: unknown): PolicyFile {
  const result = policyFileSchema.safeParse(doc);
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap(toProblems);
  const lines = problems.map((p) => `${p.path || '(root)'}: ${p.message}`);
  throw new TrustError(
    'POLICY_INVALID',
    `invalid policy file (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${lines.join('; ')}`,
    {
      problems,
      hint: problems[0]?.hint,
    },
  );
}

/**
 * Parses policy JSON text and validates it with `parsePolicyFile`. A syntax error throws
 * `POLICY_JSON` with the line and column (never a quote of the text, which may hold secrets).
 *
 * @example
 * parsePolicyText('{ "v": 1, "http": { "allow": ["api.example.com"] } }');
 */
export function parsePolicyText(text: string): PolicyFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    // The engine's message may quote part of the text, which can hold literal header secrets:
    // report only where the error is, and keep the original error out of `cause`.
    const detail = cause instanceof Error ? cause.message : '';
    const at = /position (\d+)/.exec(detail);
    let where = '';
    if (at) {
      const before = text.slice(0, Number(at[1]));
      const line = before.split('\n').length;
      where = ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
    }
    throw new TrustError('POLICY_JSON', `the policy file is not valid JSON${where}`, {
      hint: `fix the JSON syntax; a minimal policy is ${EXAMPLES['']}`,
    });
  }
  return parsePolicyFile(doc);
}
