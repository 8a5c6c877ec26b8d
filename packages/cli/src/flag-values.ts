import { usageError } from './cli-error.js';

/**
 * Parsers for flag and argument values that name a URL, a CIDR block or a capability. A value
 * that does not parse is a usage error (exit 2) raised before anything is judged: a malformed
 * request is never reported as "denied" (126), which is reserved for a policy's answer.
 */

/**
 * A URL argument, parsed by the WHATWG parser (the one the guard uses), or a usage error.
 *
 * @example
 * parseUrlArgument('https://example.com/'); // URL
 */
export function parseUrlArgument(text: string, what = '<url>'): URL {
  try {
    return new URL(text);
  } catch (cause) {
    const hint = /^[\w.-]+(:\d+)?(\/|$)/.test(text)
      ? `add the scheme: https://${text}`
      : 'write an absolute URL such as https://example.com/path';
    throw Object.assign(usageError('CLI_USAGE_INVALID_URL', `${what} '${text}' is not a URL that parses`, hint), {
      cause,
    });
  }
}

/** Checks every value of a CIDR flag (`--allow-cidr`, `--deny-cidr`) with the core parser. */
export async function checkCidrFlag(flag: string, list: readonly string[]): Promise<void> {
  if (list.length === 0) return;
  const { parseCidr } = await import('@trust/core');
  for (const text of list) {
    if (parseCidr(text) === undefined) {
      throw usageError(
        'CLI_USAGE_INVALID_VALUE',
        `--${flag} '${text}' is not a CIDR block or an IP address`,
        `for example --${flag} 10.1.0.0/16 or --${flag} 10.0.0.5`,
      );
    }
  }
}

/**
 * Checks every value of a capability flag (`--cap`, `--grant`) with the core parser; the first
 * that does not parse is a usage error naming its problem and the valid forms.
 */
export async function checkCapabilityFlag(flag: string, list: readonly string[]): Promise<void> {
  if (list.length === 0) return;
  const { tryParseCapabilities } = await import('@trust/core');
  for (const text of list) {
    const r = tryParseCapabilities([text]);
    if (!r.ok) {
      const problem = r.error.problems[0];
      throw usageError(
        'CLI_USAGE_INVALID_VALUE',
        `--${flag} '${text}' is not a capability: ${problem?.message ?? r.error.message}`,
        problem?.hint ?? r.error.hint ?? `see \`trust --help\``,
      );
    }
  }
}
