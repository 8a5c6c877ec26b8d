/** Header names whose values are secrets whether or not a policy injected them. */
export const SENSITIVE_HEADERS: readonly string[] = Object.freeze(['authorization', 'cookie', 'proxy-authorization']);

/**
 * The URL as it may appear in audit events, errors and logs: no userinfo, no fragment, and every
 * query value replaced by `REDACTED` (names stay, so the event still says what was asked).
 *
 * @example
 * redactUrl('https://u:p@api.test/v1?key=s3cr3t&q=cats#x'); // 'https://api.test/v1?key=REDACTED&q=REDACTED'
 */
export function redactUrl(input: string | URL): string {
  let url: URL;
  try {
    url = new URL(typeof input === 'string' ? input : input.href);
  } catch {
    return '(unparsable URL)';
  }
  url.username = '';
  url.password = '';
  url.hash = '';
  if (url.search !== '') {
    const names = [...url.searchParams.keys()];
    url.search = names.map((n) => `${encodeURIComponent(n)}=REDACTED`).join('&');
  }
  return url.href;
}

/** Replaces every occurrence of a secret value in `text`. */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('[secret]');
  return out;
}
